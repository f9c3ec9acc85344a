/** What the parts of the FMC fake share: how a route answers, the id counter, FMC's limits and value rules. */

/** Answers the request: JSON `payload` (or no body for null) with `status` and extra headers. */
export type Answer = (status: number, payload: unknown, headers?: Record<string, string>) => void;
/** Answers with an error in FMC's shape `{error:{category,messages:[{description}],severity}}`. */
export type Fail = (status: number, description: string) => void;

/** The two ways a route of the fake answers. */
export interface Reply {
  answer: Answer;
  error: Fail;
}

/** One counter for every id and token the fake makes, so none two are alike. */
export interface Serial {
  next(): number;
}

/** FMC's limit on the entries of one bulk request and on a page. */
export const MAX_BULK = 1000;

/** An IPv4/IPv6 address or network, as FMC accepts in a mapping or literal. */
export function validValue(value: string): boolean {
  return /^(\d{1,3}(\.\d{1,3}){3}(\/\d{1,2})?|[0-9a-f:.]*:[0-9a-f:.]*(\/\d{1,3})?)$/i.test(value);
}

/** A path segment decoded, or as it is when it is not valid percent-encoding. */
export function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
