export { createGelfSender } from './gelf-sender.js';
export { parseGelfUrl, type GelfTarget } from './gelf-url.js';
export type { GelfLogger, GelfMessage, GelfSender, GelfSenderOptions } from './types.js';
