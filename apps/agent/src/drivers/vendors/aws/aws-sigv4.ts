import { createHash, createHmac } from 'node:crypto';

/** One set of AWS credentials (a session token with temporary ones: environment, instance role). */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface SignInput {
  method: string;
  /** The URL the request goes to (its host, with a non-default port, and path are signed). */
  url: URL;
  /** The exact body bytes sent. */
  body: string;
  region: string;
  service: string;
  credentials: AwsCredentials;
  now?: Date;
}

const sha256 = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/** RFC 3986 encoding as SigV4 wants it (encodeURIComponent leaves !'()* alone). */
function uriEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * AWS Signature Version 4 for one request (the EC2 Query API: a POST with a form body and no query).
 * A thin signer on node:crypto instead of the SDK: the agent needs four EC2 calls, and the SDK adds
 * about 3.3 MB to the bundle and 300 ms to the start (measured in drivers/README.md). Signs host and x-amz-date (plus x-amz-security-token for
 * temporary credentials) and the body's hash; returns the headers to send.
 */
export function signV4(input: SignInput): Record<string, string> {
  const now = input.now ?? new Date();
  const amzDate = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const day = amzDate.slice(0, 8);
  const headers: Record<string, string> = { host: input.url.host, 'x-amz-date': amzDate };
  if (input.credentials.sessionToken !== undefined && input.credentials.sessionToken !== '') {
    headers['x-amz-security-token'] = input.credentials.sessionToken;
  }
  const names = Object.keys(headers).sort();
  const canonicalHeaders = names.map((name) => `${name}:${(headers[name] ?? '').trim()}\n`).join('');
  const signedHeaders = names.join(';');
  const path = input.url.pathname.split('/').map(uriEncode).join('/') || '/';
  const query = [...input.url.searchParams]
    .map(([key, value]) => `${uriEncode(key)}=${uriEncode(value)}`)
    .sort()
    .join('&');
  const canonicalRequest = [input.method, path, query, canonicalHeaders, signedHeaders, sha256(input.body)].join('\n');
  const scope = `${day}/${input.region}/${input.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  let key = hmac(`AWS4${input.credentials.secretAccessKey}`, day);
  for (const part of [input.region, input.service, 'aws4_request']) key = hmac(key, part);
  const signature = createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex');
  const { host: _host, ...sent } = headers;
  return {
    ...sent,
    authorization: `AWS4-HMAC-SHA256 Credential=${input.credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`,
  };
}
