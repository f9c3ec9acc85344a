/**
 * The little XML the PAN-OS driver needs: escaping every value it writes into a command, and a
 * strict reader for the answers (elements, attributes, text, CDATA; no DTDs, no namespaces). Strict
 * on purpose: a bare `&` or `<` where it cannot be is an error, not a guess, so a malformed answer
 * never reads as an empty success. No dependency for a few fields.
 */

export interface XmlElement {
  name: string;
  attributes: Readonly<Record<string, string>>;
  children: XmlElement[];
  /** The element's own text (CDATA included), concatenated, entities decoded. */
  text: string;
}

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** A value safe inside element text and inside a double- or single-quoted attribute. */
export function escapeXml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": 'apos' }[c]};`);
}

export class XmlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'XmlError';
  }
}

function decodeEntities(text: string): string {
  return text.replace(/&([^;&<\s]*);?/g, (whole, name: string) => {
    if (!whole.endsWith(';')) throw new XmlError(`a bare '&' in the text`);
    if (name in ENTITIES) return ENTITIES[name] ?? '';
    const numeric = /^#(?:x([0-9a-fA-F]+)|([0-9]+))$/.exec(name);
    if (numeric === null) throw new XmlError(`unknown entity &${name};`);
    const code = numeric[1] !== undefined ? parseInt(numeric[1], 16) : Number(numeric[2]);
    if (code > 0x10ffff || code === 0) throw new XmlError(`invalid character reference &${name};`);
    return String.fromCodePoint(code);
  });
}

const NAME = /^[A-Za-z_][\w.:-]*/;

/** Parses one XML document into its root element. Throws {@link XmlError} when it is not well-formed. */
export function parseXml(source: string): XmlElement {
  let at = 0;
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  const fail = (what: string): never => {
    throw new XmlError(`${what} at offset ${at}`);
  };
  const skipProlog = () => {
    for (;;) {
      const rest = source.slice(at).trimStart();
      at = source.length - rest.length;
      if (rest.startsWith('<?')) {
        const end = source.indexOf('?>', at);
        if (end < 0) fail('an unterminated processing instruction');
        at = end + 2;
      } else if (rest.startsWith('<!--')) {
        const end = source.indexOf('-->', at);
        if (end < 0) fail('an unterminated comment');
        at = end + 3;
      } else return;
    }
  };
  skipProlog();
  while (at < source.length) {
    if (root !== null && stack.length === 0) {
      skipProlog();
      if (at < source.length) fail('content after the root element');
      break;
    }
    const current = stack[stack.length - 1];
    if (source.startsWith('<!--', at)) {
      const end = source.indexOf('-->', at);
      if (end < 0) fail('an unterminated comment');
      at = end + 3;
    } else if (source.startsWith('<![CDATA[', at)) {
      const end = source.indexOf(']]>', at);
      if (end < 0 || current === undefined) fail('misplaced or unterminated CDATA');
      if (current !== undefined) current.text += source.slice(at + 9, end);
      at = end + 3;
    } else if (source.startsWith('</', at)) {
      const match = NAME.exec(source.slice(at + 2));
      const name = match?.[0] ?? '';
      if (current === undefined || name !== current.name) fail(`an unexpected closing tag </${name}>`);
      at += 2 + name.length;
      while (/\s/.test(source[at] ?? '')) at++;
      if (source[at] !== '>') fail('a malformed closing tag');
      at++;
      stack.pop();
    } else if (source[at] === '<') {
      at++;
      const match = NAME.exec(source.slice(at));
      if (match === null) fail('a malformed tag');
      const element: XmlElement = { name: match?.[0] ?? '', attributes: {}, children: [], text: '' };
      at += element.name.length;
      const attributes: Record<string, string> = {};
      for (;;) {
        const space = /^\s*/.exec(source.slice(at))?.[0].length ?? 0;
        at += space;
        if (source.startsWith('/>', at) || source[at] === '>') break;
        if (space === 0) fail('a malformed attribute');
        const attribute = /^([A-Za-z_][\w.:-]*)\s*=\s*("([^"<]*)"|'([^'<]*)')/.exec(source.slice(at));
        if (attribute === null) fail('a malformed attribute');
        const [whole = '', key = '', , double, single] = attribute ?? [];
        if (key in attributes) fail(`a repeated attribute ${key}`);
        attributes[key] = decodeEntities(double ?? single ?? '');
        at += whole.length;
      }
      element.attributes = attributes;
      if (current !== undefined) current.children.push(element);
      else if (root === null) root = element;
      else fail('a second root element');
      if (source.startsWith('/>', at)) at += 2;
      else {
        at++;
        stack.push(element);
      }
    } else {
      const end = source.indexOf('<', at);
      const text = source.slice(at, end < 0 ? source.length : end);
      if (current === undefined) {
        if (text.trim() !== '') fail('text outside the root element');
      } else {
        if (text.includes(']]>')) fail("']]>' in text");
        current.text += decodeEntities(text);
      }
      at = end < 0 ? source.length : end;
    }
  }
  if (root === null) fail('no root element');
  if (stack.length > 0) fail(`an unclosed element <${stack[stack.length - 1]?.name ?? ''}>`);
  return root as unknown as XmlElement;
}

/** Child elements named `name` (`*` for all). */
export function childrenNamed(element: XmlElement, name: string): XmlElement[] {
  return element.children.filter((child) => name === '*' || child.name === name);
}

/** The elements at a slash-separated path below `element` (`*` matches any name), like ElementTree's findall. */
export function findAll(element: XmlElement, path: string): XmlElement[] {
  let level = [element];
  for (const step of path.split('/').filter(Boolean)) level = level.flatMap((node) => childrenNamed(node, step));
  return level;
}

/** The first element at `path`, or undefined. */
export function find(element: XmlElement, path: string): XmlElement | undefined {
  return findAll(element, path)[0];
}

/** Every text below an element, depth first, trimmed and joined with spaces (for messages). */
export function allText(element: XmlElement): string {
  const parts: string[] = [];
  const walk = (node: XmlElement) => {
    if (node.text.trim() !== '') parts.push(node.text.trim());
    node.children.forEach(walk);
  };
  walk(element);
  return parts.join(' ').replace(/\s+/g, ' ');
}
