/** One GELF 1.1 message as the caller builds it; the sender adds `version` and `host`. */
export interface GelfMessage {
  short_message: string;
  full_message?: string;
  /** Syslog severity 0 (emergency) to 7 (debug); 6 (informational) when absent or out of range. */
  level?: number;
  /** Epoch seconds, fractions allowed; now when absent. */
  timestamp?: number;
  /** Additional fields. Names outside GELF's rules (such as `_id`) are dropped, never sent. */
  [field: `_${string}`]: string | number | undefined;
}

/** Sends GELF messages to one listener without ever throwing at or blocking the caller. */
export interface GelfSender {
  send(message: GelfMessage): void;
  /** Resolves once queued messages are flushed or dropped. */
  close(): Promise<void>;
}

/** Where the sender reports trouble: pino's `logger.warn(obj, msg)` fits. */
export interface GelfLogger {
  warn(obj: object, msg: string): void;
}

export interface GelfSenderOptions {
  /** The GELF `host` field: this server's name. */
  host: string;
  logger?: GelfLogger;
  /** TCP/TLS: messages kept while the listener is unreachable; the oldest go first. Default 1000. */
  maxQueue?: number;
  tls?: {
    /** Defaults to true. Only an explicit `false` skips certificate verification. */
    rejectUnauthorized?: boolean;
    /** PEM certificates trusted in addition to the system's root CAs. */
    ca?: string | string[];
  };
}
