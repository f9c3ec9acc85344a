import {
  SEARCH_MIN_ACLS_EXCLUSIVE,
  TOP_SECTION_MAX_ENTRIES,
  TOP_SECTION_MIN_ACLS_EXCLUSIVE,
  type AclEntry,
} from '@postern/protocol';
import { isDefaultCategory } from './acl-view';

/**
 * The card view's sections (spec §2): Favourites; Top (the most used, only when there are more than
 * 20 ACLs, at most 5); then one per category, alphabetically, with the default category last as
 * Other. An ACL appears in its category even when it is also a favourite or in Top.
 */
export type DashboardSection =
  | { kind: 'favourites'; key: string; acls: AclEntry[] }
  | { kind: 'top'; key: string; acls: AclEntry[] }
  | { kind: 'category'; key: string; category: string; acls: AclEntry[] };

/** Whether the dashboard offers a search box: only above 10 ACLs. */
export function searchOffered(aclCount: number): boolean {
  return aclCount > SEARCH_MIN_ACLS_EXCLUSIVE;
}

/** Whether the dashboard has a Top section: only above 20 ACLs. */
export function topOffered(aclCount: number): boolean {
  return aclCount > TOP_SECTION_MIN_ACLS_EXCLUSIVE;
}

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/** ACLs by description, numbers in order ("Service 2" before "Service 10"). */
export function byDescription(a: AclEntry, b: AclEntry): number {
  return collator.compare(a.Description, b.Description);
}

/** Whether an ACL matches a search: its description, category or URL contains every word, ignoring case. */
export function matchesSearch(acl: AclEntry, query: string, categoryLabel: (category: string) => string): boolean {
  const words = query.toLocaleLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const text = [acl.Description, categoryLabel(acl.Category), acl.URL].join(' ').toLocaleLowerCase();
  return words.every((word) => text.includes(word));
}

/** The most used ACLs, most used first, at most 5; ACLs never used are not "top". */
export function topAcls(acls: readonly AclEntry[], usage: Readonly<Record<string, number>>): AclEntry[] {
  return acls
    .filter((acl) => (usage[acl.ACLID] ?? 0) > 0)
    .sort((a, b) => (usage[b.ACLID] ?? 0) - (usage[a.ACLID] ?? 0) || byDescription(a, b))
    .slice(0, TOP_SECTION_MAX_ENTRIES);
}

/**
 * The sections of the card view. `acls` are the visible ACLs, `shown` those that pass the search;
 * Top's presence depends on the former, its entries and every other section on the latter. An empty
 * section is left out, except Top, which says what it is for until something has been used.
 */
export function dashboardSections(
  acls: readonly AclEntry[],
  shown: readonly AclEntry[],
  favourites: readonly string[],
  usage: Readonly<Record<string, number>>,
  searching: boolean,
): DashboardSection[] {
  const sorted = [...shown].sort(byDescription);
  const sections: DashboardSection[] = [];
  const favourite = new Set(favourites);
  const favouriteAcls = sorted.filter((acl) => favourite.has(acl.ACLID));
  if (favouriteAcls.length > 0) sections.push({ kind: 'favourites', key: 'favourites', acls: favouriteAcls });
  if (topOffered(acls.length)) {
    const top = topAcls(sorted, usage);
    if (top.length > 0 || !searching) sections.push({ kind: 'top', key: 'top', acls: top });
  }
  const byCategory = new Map<string, AclEntry[]>();
  for (const acl of sorted) {
    const category = isDefaultCategory(acl.Category) ? '' : acl.Category;
    byCategory.set(category, [...(byCategory.get(category) ?? []), acl]);
  }
  const categories = [...byCategory.keys()].sort((a, b) => {
    if (a === '' || b === '') return a === '' ? 1 : -1;
    return collator.compare(a, b);
  });
  for (const category of categories) {
    sections.push({ kind: 'category', key: `category:${category}`, category, acls: byCategory.get(category) ?? [] });
  }
  return sections;
}
