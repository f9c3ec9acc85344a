/** Path of the agent WebSocket endpoint under the server's base URL. */
export const AGENT_CONNECT_PATH = '/api/agent/v1/connect';

/** Agent tokens are long random strings; anything shorter is a typo or a placeholder. */
export const AGENT_TOKEN_MIN_LENGTH = 20;
