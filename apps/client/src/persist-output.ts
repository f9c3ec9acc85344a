import type { KnocResult } from './grants.js';
import { knocJson, localTime, pascalCase, whenText } from './output.js';
import type { PersistEvent, TroubleKind } from './persist.js';

const RECOVERED: Record<TroubleKind, string> = {
  unreachable: 'the server is reachable again',
  throttled: 'the server accepts sign-ins again',
  unlicensed: 'Postern is licensed again',
  problem: 'the server answers as expected again',
};

/** One persist event as a line of text, after the local time. */
export function eventText(event: PersistEvent, now: number): string {
  return `${localTime(now)} ${eventMessage(event)}`;
}

function eventMessage(event: PersistEvent): string {
  switch (event.event) {
    case 'signed-in':
      return `signed in as ${event.userName}; the session ends ${whenText(event.sessionEnds)}`;
    case 'address':
      return event.previous === null
        ? `the server sees this machine at ${event.address}`
        : `the address changed from ${event.previous} to ${event.address}; the server moves the grants to it`;
    case 'grant-requested':
      return `asking for "${event.name}"`;
    case 'knoc':
      return event.knoc.ok
        ? `"${event.knoc.name}" granted${event.knoc.expiresAt === null ? '' : ` until ${whenText(event.knoc.expiresAt)}`}`
        : `"${event.knoc.name}" not granted: ${event.knoc.error}`;
    case 'handover':
      return `new session until ${whenText(event.sessionEnds)} in place; ${
        event.previousLoggedOut
          ? 'the previous one was logged out'
          : 'the previous one could not be logged out (it ends by itself)'
      }`;
    case 'session-ended':
      return `${event.message}; signing in again`;
    case 'unreachable':
    case 'problem':
      return `${event.message}; trying again in ${event.retryInSeconds} s, and at growing intervals`;
    case 'throttled':
      return `${event.message}; trying again in ${event.retryInSeconds} s`;
    case 'unlicensed':
      return `${event.message}; checking again every interval`;
    case 'recovered':
      return RECOVERED[event.from];
    case 'stopping':
      return 'stopping: logging out';
    case 'stopped':
      return event.loggedOut
        ? 'logged out; every grant of the session is revoked'
        : 'stopped without logging out (the server could not be reached); the session ends by itself';
  }
}

/** One persist event as a JSON line: Time and Event first, then the event's fields (PascalCase). */
export function eventJson(event: PersistEvent, now: number): string {
  const { event: name, ...fields } = event;
  const body = Object.fromEntries(
    Object.entries(fields).map(([key, value]) => [
      pascalCase(key),
      key === 'knoc' ? knocJson(value as KnocResult) : (value as unknown),
    ]),
  );
  return JSON.stringify({ Time: new Date(now).toISOString(), Event: name, ...body });
}
