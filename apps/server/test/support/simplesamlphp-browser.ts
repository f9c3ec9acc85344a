import type { RunningProcess } from '@postern/test-support';

/**
 * The browser side of a sign-in at the SimpleSAMLphp test IdP: just enough of one to follow its
 * redirects with cookies, fill in its login form, and read the form it posts to the SP.
 */

/** What a browser ends up with after signing in: the auto-submitted form to the SP's ACS. */
export interface SamlPostForm {
  action: string;
  SAMLResponse: string;
  RelayState: string | undefined;
}

/** The few steps a browser takes at the IdP; more than this means the flow went wrong. */
const MAX_BROWSER_STEPS = 10;

/**
 * A minimal browser: follows redirects by hand (so it can keep cookies per step), submits the login
 * form, and stops at the IdP's auto-submitting form to the SP.
 */
export async function browserSignIn(
  startUrl: string,
  username: string,
  password: string,
  server: RunningProcess,
): Promise<SamlPostForm> {
  const cookies = new Map<string, string>();
  // What PHP logs from here on (SimpleSAMLphp logs its errors to stderr) explains a failure.
  const logFrom = server.stderr().length;
  const failure = (what: string, html: string) =>
    new Error(`${what} at ${request.url.split('?')[0] ?? ''}: ${pageSummary(html)}\n${server.stderr().slice(logFrom)}`);
  let request: { url: string; method: 'GET' | 'POST'; body?: URLSearchParams } = { url: startUrl, method: 'GET' };
  let submittedPassword = false;
  for (let step = 0; step < MAX_BROWSER_STEPS; step += 1) {
    const response = await fetch(request.url, {
      method: request.method,
      redirect: 'manual',
      headers: {
        ...(cookies.size === 0 ? {} : { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') }),
        ...(request.body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      ...(request.body === undefined ? {} : { body: request.body.toString() }),
      signal: AbortSignal.timeout(10_000),
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair?.indexOf('=') ?? -1;
      if (pair !== undefined && at > 0) cookies.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
    }
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location !== null) {
      await response.body?.cancel();
      request = { url: new URL(location, request.url).toString(), method: 'GET' };
      continue;
    }
    const html = await response.text();
    if (response.status !== 200) throw failure(`IdP answered ${response.status}`, html);
    const samlResponse = hiddenInput(html, 'SAMLResponse');
    if (samlResponse !== undefined) {
      const action = formAction(html);
      if (action === undefined) throw new Error('the IdP posted a SAMLResponse without a form action');
      return {
        action: new URL(action, request.url).toString(),
        SAMLResponse: samlResponse,
        RelayState: hiddenInput(html, 'RelayState'),
      };
    }
    const authState = hiddenInput(html, 'AuthState');
    if (authState === undefined) throw failure('the IdP showed an error page', html);
    if (submittedPassword) throw failure('the IdP refused the username or password', html);
    submittedPassword = true;
    const target = new URL(formAction(html) ?? '', request.url).toString();
    request = { url: target, method: 'POST', body: new URLSearchParams({ username, password, AuthState: authState }) };
  }
  throw new Error(`no SAMLResponse after ${MAX_BROWSER_STEPS} steps at the IdP`);
}

/** The headings and error texts of an IdP page, for an error message (not the whole page). */
function pageSummary(html: string): string {
  const texts = [...html.matchAll(/<(h1|h2|p)\b[^>]*>([\s\S]*?)<\/\1>/gi)]
    .map((match) =>
      decodeEntities(
        (match[2] ?? '')
          .replace(/<[^>]+>/g, ' ')
          .replace(/\s+/g, ' ')
          .trim(),
      ),
    )
    .filter((text) => text !== '');
  return texts.slice(0, 6).join(' | ');
}

/** The value of `<input … name="name" … value="…">`, HTML entities decoded. */
function hiddenInput(html: string, name: string): string | undefined {
  for (const match of html.matchAll(/<input\b[^>]*>/gi)) {
    const tag = match[0];
    if (attribute(tag, 'name') === name) return attribute(tag, 'value') ?? '';
  }
  return undefined;
}

function formAction(html: string): string | undefined {
  const tag = /<form\b[^>]*>/i.exec(html)?.[0];
  return tag === undefined ? undefined : attribute(tag, 'action');
}

function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}\\s*=\\s*("([^"]*)"|'([^']*)')`, 'i').exec(tag);
  if (match === null) return undefined;
  return decodeEntities(match[2] ?? match[3] ?? '');
}

function decodeEntities(text: string): string {
  return text
    .replace(/&#x([0-9a-f]+);/gi, (_m, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#(\d+);/g, (_m, dec: string) => String.fromCodePoint(parseInt(dec, 10)))
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
