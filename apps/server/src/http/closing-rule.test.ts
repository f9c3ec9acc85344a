import { describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { installClosingRule } from './closing-rule.js';

/** A bare app with the rule and a request that waits until the test lets it answer. */
function appWithSlowRoute(): {
  app: FastifyInstance;
  arrived: Promise<void>;
  closing: Promise<void>;
  answer: () => void;
} {
  const app = Fastify();
  installClosingRule(app);
  let begin = () => undefined as void;
  const closing = new Promise<void>((resolve) => (begin = resolve));
  // After the rule's own: the close has begun once this runs.
  app.addHook('preClose', (done) => {
    begin();
    done();
  });
  let answer = () => undefined as void;
  let arrive = () => undefined as void;
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  const answered = new Promise<void>((resolve) => (answer = resolve));
  app.get('/slow', async () => {
    arrive();
    await answered;
    return { data: 'done' };
  });
  return { app, arrived, closing, answer };
}

describe('the closing rule', () => {
  it('answers a request in flight when the close begins, and closes its keep-alive connection with the answer', async () => {
    const { app, arrived, closing, answer } = appWithSlowRoute();
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    // Keep-alive, as browsers and fetch send it: without the rule the close waits for the connection to idle out.
    const response = fetch(`${url}/slow`);
    await arrived;
    const closed = app.close();
    await closing;
    answer();
    const answered = await response;

    expect(answered.status).toBe(200);
    expect(answered.headers.get('connection')).toBe('close');
    expect(await answered.json()).toEqual({ data: 'done' });
    await closed;
  });
});
