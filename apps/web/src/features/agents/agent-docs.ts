import type { CapabilityId } from './agent-capabilities';

/**
 * Where Postern's agent documentation lives. The project publishes no documentation site yet, so
 * these point at the README's agent section in the source repository; one constant to change when
 * a site exists (it belongs in the protocol, beside the other product constants).
 */
export const AGENT_DOCS_URL = 'https://github.com/postern/postern/blob/main/README.md#installing-an-agent-on-a-host';

/** The documentation of each capability group of the capabilities dialog (one section for now). */
export const CAPABILITY_DOCS_URLS: Record<CapabilityId, string> = {
  ipset: AGENT_DOCS_URL,
  script: AGENT_DOCS_URL,
  haproxy: AGENT_DOCS_URL,
  other: AGENT_DOCS_URL,
};
