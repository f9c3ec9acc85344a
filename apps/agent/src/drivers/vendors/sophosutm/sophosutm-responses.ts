import { z } from 'zod';

/**
 * The Sophos UTM restd answers the driver reads (VENDORS.md 1.5). Every object carries its `_ref`;
 * unknown fields are kept (firmware versions add some), the driver reads only these.
 */
export const UtmObject = z.looseObject({
  _ref: z.string().min(1),
  name: z.string(),
});

/** `GET /api/objects/network/group/<ref>`: the group and its member refs (a whole-array field). */
export const UtmGroup = z.looseObject({
  _ref: z.string().min(1),
  name: z.string(),
  members: z.array(z.string()).default([]),
});

/** `GET /api/objects/network/<kind>/`: every object of the kind. */
export const UtmObjectList = z.array(UtmObject);
export const UtmGroupList = z.array(UtmGroup);

/**
 * restd's error answer: a list of messages, each with a `name` (the human text) and, for the ones
 * that ask for confirmation, a `class`/`msgtype`. Only the texts are read, for messages.
 */
const UtmMessage = z.looseObject({ name: z.string().optional(), msgtype: z.string().optional() });
const UtmMessages = z.array(UtmMessage);

/** The texts of a restd error answer ('' when it has none). */
export function utmErrorText(body: unknown): string {
  const parsed = UtmMessages.safeParse(body);
  if (parsed.success) {
    return parsed.data
      .map((message) => message.name ?? message.msgtype ?? '')
      .filter((text) => text !== '')
      .join('; ');
  }
  return typeof body === 'string' ? body.trim().slice(0, 200) : '';
}
