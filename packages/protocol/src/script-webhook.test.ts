import { describe, expect, it } from 'vitest';
import { isWebhookCommand, webhookUrlProblem } from './script-webhook.js';

describe('script webhook commands', () => {
  it.each([
    ['https://hooks.example.com/grant', true],
    ['HTTP://127.0.0.1:8080/', true],
    ['ftp://files.example.com/', true],
    ['notify.sh', false],
    ['/etc/postern-agent/scripts/notify.sh', false],
    ['vendor/open.sh', false],
  ])('%s is a webhook: %s', (command, webhook) => {
    expect(isWebhookCommand(command)).toBe(webhook);
  });

  it.each([
    ['https://hooks.example.com/grant?x=1', null],
    ['https://203.0.113.9:8443/', null],
    ['http://127.0.0.1:8080/hook', null],
    ['http://127.1.2.3/hook', null],
    ['http://localhost/hook', null],
    ['http://[::1]:9000/hook', null],
    ['http://hooks.example.com/grant', 'plainHttp'],
    ['http://10.0.0.1/grant', 'plainHttp'],
    ['http://localhost.example.com/', 'plainHttp'],
    ['ftp://hooks.example.com/', 'scheme'],
    ['https://user:pw@hooks.example.com/', 'credentials'],
    ['https://hooks example.com/', 'invalid'],
    ['https://010.0.0.1/', 'invalid'],
  ])('%s: %s', (url, problem) => {
    expect(webhookUrlProblem(url)).toBe(problem);
  });
});
