import { allText, find, findAll, parseXml, XmlError, type XmlElement } from '../panos/panos-xml.js';

/**
 * Reading the SFOS XML API's answers (VENDORS.md 1.6; sophos-firewall-sdk `api_client.py`). Every
 * answer is `<Response>`: a refused login shows as `Login/status = Authentication Failure`, an API
 * refused for the whole call as a top-level `<Status code="534|532">`, and each entity of the request
 * is answered by an element of its name with a `<Status code="…">` (2xx = done) or, for a Get, the
 * entities found ("Number of records Zero." when none).
 */

/** Why a call as a whole failed, or null. Messages say what to change on the firewall. */
export function sfosCallFailure(root: XmlElement): string | null {
  if (root.name !== 'Response') return 'unexpected answer (not an SFOS API <Response>)';
  const login = find(root, 'Login/status')?.text.trim();
  if (login !== undefined && /authentication failure/i.test(login))
    return 'the firewall refused the login (Authentication Failure); check the backend Username and Password';
  const status = find(root, 'Status');
  if (status !== undefined) {
    const code = status.attributes.code ?? '';
    if (code === '534')
      return `the firewall does not allow the agent's address (534 ${status.text.trim()}); add it under Backup & firmware > API > Allowed IP address`;
    if (code === '532') return `the firewall's API is not enabled (532 ${status.text.trim()})`;
    if (!code.startsWith('2')) return `${code === '' ? '' : `${code} `}${allText(status)}`.trim();
  }
  return null;
}

/** Parses an answer; throws with a short reason when it is not XML. */
export function parseSfosAnswer(body: unknown): XmlElement {
  if (typeof body !== 'string') throw new XmlError('the answer is not XML');
  return parseXml(body);
}

/** One entity's status in a Set or Remove answer. */
export interface SfosEntityStatus {
  code: string;
  text: string;
}

/** The statuses of the answer's `tag` elements, by the transactionid the request gave them. */
export function entityStatuses(root: XmlElement, tag: string): Map<string, SfosEntityStatus> {
  const statuses = new Map<string, SfosEntityStatus>();
  for (const element of findAll(root, tag)) {
    const status = find(element, 'Status');
    if (status === undefined) continue;
    statuses.set(element.attributes.transactionid ?? '', {
      code: status.attributes.code ?? '',
      text: status.text.trim(),
    });
  }
  return statuses;
}

/** "Number of records Zero." / "No. of records Zero.": nothing found, which is no error. */
export function isZeroRecords(text: string): boolean {
  return /^(number|no\.) of records zero\.?$/i.test(text.trim());
}

export function isDone(status: SfosEntityStatus): boolean {
  return /^2\d\d$/.test(status.code);
}

/** An add of a name that exists ("Entity having same name already exists"): done for the driver. */
export function isAlreadyPresent(status: SfosEntityStatus): boolean {
  return /already exists/i.test(status.text);
}

/** A remove of a name that is gone. */
export function isAlreadyAbsent(status: SfosEntityStatus): boolean {
  return isZeroRecords(status.text) || /not (be )?found|does not exist/i.test(status.text);
}

/** An IP host group as read: its name, description, family and host names. */
export interface SfosGroup {
  name: string;
  description: string;
  family: string;
  hosts: string[];
}

/** The groups of a `<Get><IPHostGroup>` answer (none when it says zero records). */
export function groupsOf(root: XmlElement): SfosGroup[] {
  return findAll(root, 'IPHostGroup')
    .filter((element) => find(element, 'Name') !== undefined)
    .map((element) => ({
      name: find(element, 'Name')?.text.trim() ?? '',
      description: find(element, 'Description')?.text ?? '',
      family: find(element, 'IPFamily')?.text.trim() ?? '',
      hosts: findAll(element, 'HostList/Host').map((host) => host.text.trim()),
    }));
}

/** An IP host as `<Get><IPHost>` answers it: what it opens is its type, address and subnet. */
export interface SfosHostContent {
  name: string;
  family: string;
  type: string;
  address: string;
  /** A Network host's mask: dotted (IPv4) or a prefix length (IPv6); '' for any other type. */
  subnet: string;
}

/** The IP hosts in a `<Get><IPHost>` answer ("Number of records Zero." holds none). */
export function hostsOf(root: XmlElement): SfosHostContent[] {
  return findAll(root, 'IPHost')
    .filter((element) => find(element, 'Name') !== undefined)
    .map((element) => ({
      name: find(element, 'Name')?.text.trim() ?? '',
      family: find(element, 'IPFamily')?.text.trim() ?? '',
      type: find(element, 'HostType')?.text.trim() ?? '',
      address: find(element, 'IPAddress')?.text.trim() ?? '',
      subnet: find(element, 'Subnet')?.text.trim() ?? '',
    }));
}
