import { describe, expect, it } from 'vitest';
import { allText, escapeXml, find, findAll, parseXml } from './panos-xml.js';

describe('panos XML', () => {
  it('escapes every character that could end a value or start markup', () => {
    expect(escapeXml(`a<b>&"c'`)).toBe('a&lt;b&gt;&amp;&quot;c&apos;');
    const parsed = parseXml(`<e name="${escapeXml(`x"/><evil y='1'`)}">${escapeXml('</e><e>')}</e>`);
    expect(parsed.attributes.name).toBe(`x"/><evil y='1'`);
    expect(parsed.text).toBe('</e><e>');
    expect(parsed.children).toEqual([]);
  });

  it('reads answers: prolog, attributes, self-closing tags, CDATA, entities, paths', () => {
    const root = parseXml(
      `<?xml version="1.0"?>\n<response status='error' code="403"><!-- c --><msg><line><uid-response><payload>` +
        `<register><entry ip="192.0.2.1" message="tag kk-a already exists, ignore"/></register>` +
        `</payload></uid-response></line></msg><result><![CDATA[a <b> &]]> &#x41;&#66;</result></response>`,
    );
    expect(root.name).toBe('response');
    expect(root.attributes).toEqual({ status: 'error', code: '403' });
    expect(findAll(root, 'msg/line/uid-response/payload/*/entry').map((e) => e.attributes.ip)).toEqual(['192.0.2.1']);
    expect(find(root, 'result')?.text).toBe('a <b> & AB');
    expect(allText(parseXml('<a> x <b>y</b></a>'))).toBe('x y');
  });

  it('refuses what is not well-formed instead of guessing', () => {
    for (const bad of [
      '',
      'text',
      '<a>',
      '<a></b>',
      '<a>&</a>',
      '<a>&bogus;</a>',
      '<a x="1" x="2"/>',
      '<a x="<"/>',
      '<a/><b/>',
      '<a/>trailing',
      '<a x=1/>',
    ]) {
      expect(() => parseXml(bad), bad).toThrow();
    }
  });
});
