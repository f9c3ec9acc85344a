import { describe, expect, it } from 'vitest';
import { ErrorCodes } from '@postern/protocol';
import { firstIssues } from '@/test-support/form-issues';
import { envVarsSchema, namedEnvVars, type EnvVarRow } from './env-vars';

const row = (Name: string, Value: string, patch: Partial<EnvVarRow> = {}): EnvVarRow => ({
  Name,
  Value,
  Sensitive: false,
  Encrypted: false,
  ...patch,
});

const issues = (rows: EnvVarRow[]) => firstIssues(envVarsSchema, { EnvVars: rows });

describe('environment variable rules', () => {
  it.each([
    ['a named variable with a value', [row('REGION', 'eu')], {}],
    ['a wholly empty row', [row('', '')], {}],
    ['a value without a name', [row('', 'eu')], { 'EnvVars.0.Name': ErrorCodes.emptyEnvVarName }],
    ['a name without a value', [row('REGION', '')], { 'EnvVars.0.Value': ErrorCodes.envVarValueRequired }],
    ['a name with a stored encrypted value', [row('TOKEN', '', { Encrypted: true, Sensitive: true })], {}],
    ['= in a name', [row('A=B', 'x')], { 'EnvVars.0.Name': ErrorCodes.invalidEnvVarName }],
    [
      'a repeated name',
      [row('REGION', 'eu'), row('REGION', 'us')],
      { 'EnvVars.1.Name': ErrorCodes.repeatedEnvVarNames },
    ],
  ])('%s', (_, rows, expected) => {
    expect(issues(rows)).toEqual(expected);
  });

  it('drops rows without a name and trims names', () => {
    expect(namedEnvVars([row('', ''), row(' REGION ', 'eu', { Sensitive: true })])).toEqual([
      row('REGION', 'eu', { Sensitive: true }),
    ]);
  });
});
