import { describe, expect, it } from 'vitest';
import type { AclEntry } from '@postern/protocol';
import { aclEntry } from '../../test-support/fixtures';
import { dashboardSections, matchesSearch, searchOffered, topAcls, topOffered } from './dashboard-sections';

function acls(count: number, overrides: (index: number) => Partial<AclEntry> = () => ({})): AclEntry[] {
  return Array.from({ length: count }, (_, index) =>
    aclEntry({ ACLID: `acl-${index + 1}`, Description: `Service ${index + 1}`, ...overrides(index) }),
  );
}

const label = (category: string) => (category === 'Default' || category === '' ? 'Other' : category);
const titles = (sections: ReturnType<typeof dashboardSections>) =>
  sections.map((section) => (section.kind === 'category' ? `category:${section.category}` : section.kind));

describe('dashboard thresholds (spec §5, §9)', () => {
  it.each([
    [10, false],
    [11, true],
  ])('offers search with %i ACLs: %s', (count, offered) => {
    expect(searchOffered(count)).toBe(offered);
  });

  it.each([
    [20, false],
    [21, true],
  ])('has a Top section with %i ACLs: %s', (count, offered) => {
    expect(topOffered(count)).toBe(offered);
    const list = acls(count);
    expect(titles(dashboardSections(list, list, [], {}, false)).includes('top')).toBe(offered);
  });
});

describe('Top', () => {
  it('holds at most 5 ACLs, most used first, and never an unused one', () => {
    const list = acls(8);
    const usage = { 'acl-1': 1, 'acl-2': 7, 'acl-3': 3, 'acl-4': 9, 'acl-5': 2, 'acl-6': 4, 'acl-7': 0 };
    expect(topAcls(list, usage).map((acl) => acl.ACLID)).toEqual(['acl-4', 'acl-2', 'acl-6', 'acl-3', 'acl-5']);
    expect(topAcls(list, {})).toEqual([]);
  });

  it('stays, empty, until something has been used, but is left out of an empty search result', () => {
    const list = acls(21);
    const [top] = dashboardSections(list, list, [], {}, false);
    expect(top).toMatchObject({ kind: 'top', acls: [] });
    expect(titles(dashboardSections(list, [], [], {}, true))).toEqual([]);
  });
});

describe('sections', () => {
  it('are Favourites, Top, then the categories alphabetically with the default one last', () => {
    const list = acls(21, (index) => ({ Category: ['Default', 'Web', 'Databases'][index % 3] }));
    const sections = dashboardSections(list, list, ['acl-3'], { 'acl-2': 1 }, false);
    expect(titles(sections)).toEqual(['favourites', 'top', 'category:Databases', 'category:Web', 'category:']);
    expect(sections[0]?.acls.map((acl) => acl.ACLID)).toEqual(['acl-3']);
    expect(sections[1]?.acls.map((acl) => acl.ACLID)).toEqual(['acl-2']);
  });

  it('keep a favourite in its category too, and sort by description with numbers in order', () => {
    const list = acls(12);
    const sections = dashboardSections(list, list, ['acl-10'], {}, false);
    const other = sections.find((section) => section.kind === 'category');
    expect(other?.acls.map((acl) => acl.Description).slice(0, 3)).toEqual(['Service 1', 'Service 2', 'Service 3']);
    expect(other?.acls.some((acl) => acl.ACLID === 'acl-10')).toBe(true);
  });

  it('leave out an empty Favourites section', () => {
    const list = acls(2);
    expect(titles(dashboardSections(list, list, ['gone'], {}, false))).toEqual(['category:']);
  });
});

describe('search', () => {
  it('matches description, category label and URL, every word, ignoring case', () => {
    const acl = aclEntry({ Description: 'Billing database', Category: 'Finance', URL: 'https://billing.example.com' });
    expect(matchesSearch(acl, 'BILLING', label)).toBe(true);
    expect(matchesSearch(acl, 'finance data', label)).toBe(true);
    expect(matchesSearch(acl, 'example.com', label)).toBe(true);
    expect(matchesSearch(acl, 'billing wiki', label)).toBe(false);
    expect(matchesSearch(aclEntry({ Category: 'Default' }), 'other', label)).toBe(true);
    expect(matchesSearch(acl, '   ', label)).toBe(true);
  });
});
