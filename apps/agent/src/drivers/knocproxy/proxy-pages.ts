const TITLES: Record<403 | 502 | 504, string> = {
  403: 'Access not granted',
  502: 'Service unavailable',
  504: 'Service did not answer',
};

const EXPLANATIONS: Record<403 | 502 | 504, string> = {
  403: 'Your address has no access to this service. Sign in to Postern, grant access, then reload this page.',
  502: 'The service behind this address could not be reached. Try again shortly.',
  504: 'The service behind this address did not answer in time. Try again shortly.',
};

/** The short page knocproxy answers with when it does not forward a request. */
export function errorPage(status: 403 | 502 | 504, client: string | null): string {
  const address = client === null ? '' : `<p>Your address: <code>${escapeHtml(client)}</code></p>`;
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">',
    `<title>${TITLES[status]}</title></head>`,
    `<body style="font-family:sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem">`,
    `<h1>${TITLES[status]}</h1><p>${EXPLANATIONS[status]}</p>${address}</body></html>`,
    '',
  ].join('\n');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
