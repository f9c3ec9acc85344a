import { z } from 'zod';
import type { VendorRules } from '../../kit/vendor-outcome.js';
import { allText, find, findAll, parseXml, type XmlElement } from './panos-xml.js';

/**
 * The PAN-OS XML API answers the driver reads (VENDORS.md 1.3). Every answer is
 * `<response status="success|error" [code="…"]>`; a User-ID call that failed for some entries lists
 * them under `msg/line/uid-response/payload/<section>/entry` with `ip` (and `name` for logins) and
 * `message` (pan-python's `__get_response_msg`); other errors carry text in `msg/line` or
 * `result/msg`. The fields read are checked with zod after the XML is parsed; everything else in
 * an answer is ignored (PAN-OS versions add attributes).
 */
export const PanosStatus = z.enum(['success', 'error']);

export interface PanosAnswer {
  status: z.infer<typeof PanosStatus>;
  /** The response's `code` attribute, or null. */
  code: string | null;
  root: XmlElement;
}

/** A body read as a PAN-OS `<response>`; a string error when it is not one. */
export function readPanosAnswer(body: unknown): PanosAnswer | string {
  if (typeof body !== 'string') return 'the answer is not XML';
  let root: XmlElement;
  try {
    root = parseXml(body);
  } catch (error) {
    return `the answer is not well-formed XML (${error instanceof Error ? error.message : String(error)})`;
  }
  if (root.name !== 'response') return `the answer is <${root.name}>, not <response>`;
  const status = PanosStatus.safeParse(root.attributes.status);
  if (!status.success) return 'the answer has no status success or error';
  return { status: status.data, code: root.attributes.code ?? null, root };
}

/** One entry a User-ID call reported on. */
export const UidEntryMessage = z.object({
  section: z.string(),
  ip: z.string(),
  name: z.string().optional(),
  message: z.string(),
});
export type UidEntryMessage = z.infer<typeof UidEntryMessage>;

/** The per-entry messages of a User-ID answer (none for a plain success). */
export function uidEntryMessages(root: XmlElement): UidEntryMessage[] {
  const sections = [
    ...findAll(root, 'msg/line/uid-response/payload/*'),
    ...findAll(root, 'result/uid-response/payload/*'),
  ];
  return z.array(UidEntryMessage).parse(
    sections.flatMap((section) =>
      findAll(section, 'entry').map((entry) => ({
        section: section.name,
        ip: entry.attributes.ip ?? '',
        ...(entry.attributes.name === undefined ? {} : { name: entry.attributes.name }),
        message: entry.attributes.message ?? '',
      })),
    ),
  );
}

/** An error answer's text for a message: its entry messages, else its `msg/line`s, else all its text. */
export function panosErrorText(root: XmlElement): string {
  const entries = uidEntryMessages(root);
  if (entries.length > 0) return entries.map((entry) => `${entry.ip}: ${entry.message}`).join('; ');
  const lines = findAll(root, 'msg/line').map(allText).filter(Boolean);
  if (lines.length > 0) return lines.join('; ');
  const msg = find(root, 'result/msg');
  const text = msg === undefined ? allText(root) : allText(msg);
  return text === '' ? 'no reason given' : text;
}

/** `<show><object><registered-ip>`: each `result/entry` with its `ip` and tag members. */
export const RegisteredEntry = z.object({ ip: z.string().min(1), tags: z.array(z.string()) });

export function registeredEntries(root: XmlElement): z.infer<typeof RegisteredEntry>[] {
  return z.array(RegisteredEntry).parse(
    findAll(root, 'result/entry').map((entry) => ({
      ip: entry.attributes.ip,
      tags: findAll(entry, 'tag/member').map((member) => member.text.trim()),
    })),
  );
}

/** PAN-OS's wording for "already there" and "already gone" (pan-os-python treats both as done). */
export function isAlreadyPresent(message: string): boolean {
  return /already exists, ignore\s*$/i.test(message);
}

export function isAlreadyAbsent(message: string): boolean {
  return /does not exist, ignore unreg\s*$/i.test(message) || /delete mapping failed/i.test(message);
}

/**
 * A whole answer: a 2xx whose `<response>` says error is a failure (the XML API answers most
 * errors with HTTP 200).
 */
export const PANOS_RULES: VendorRules = {
  failedDespiteSuccess: (answer) => {
    const read = readPanosAnswer(answer.body);
    return typeof read === 'string' || read.status !== 'success';
  },
};
