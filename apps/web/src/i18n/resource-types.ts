import type { AuditAction, ErrorCode } from '@postern/protocol';

/** The part of an error code after `err.`: the key under `err` in the resources. */
type ErrorSuffix<C> = C extends `err.${infer Name}` ? Name : never;

/** One text per server error code; the compiler refuses a catalogue that misses one. */
export type ErrorTexts = Record<ErrorSuffix<ErrorCode>, string>;

/** One text per audit action name. */
export type AuditActionTexts = Record<AuditAction, string>;

/**
 * The same tree of keys as `T`, with any text as leaves: the German resources must have exactly the
 * English keys (extra or missing keys are compile errors, and a test checks it at run time as well).
 */
export type MirroredResource<T> = { [K in keyof T]: T[K] extends string ? string : MirroredResource<T[K]> };
