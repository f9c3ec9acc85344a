import pino from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import { batchDocument, parseNftError } from '../nftables/nft-json.js';
import { managedRuleExpr, parseTableListing, readManagedRuleExpr } from '../nftables/nft-rules.js';
import { FakeRuleset } from '../nftables/fake-ruleset.test-support.js';
import { managedRuleComment } from './managed-rule.js';
import { NftRuleOwner, type NftManagedRulePlan, type NftRuleIo } from './nft-rule-owner.js';

const TABLE = 'inet postern';
const COMMENT = managedRuleComment('b1');
/** The admin's chain of docs/agents.md: established first, then the set for new connections. */
const ADMIN_RULES = [
  {
    expr: [
      { match: { op: 'in', left: { ct: { key: 'state' } }, right: ['established', 'related'] } },
      { accept: null },
    ],
  },
  {
    expr: [
      { match: { op: '==', left: { payload: { protocol: 'ip', field: 'saddr' } }, right: '@allow4' } },
      { match: { op: '==', left: { payload: { protocol: 'tcp', field: 'dport' } }, right: 22 } },
      { accept: null },
    ],
  },
];

const plan = (overrides: Partial<NftManagedRulePlan> = {}): NftManagedRulePlan => ({
  backendId: 'b1',
  chain: 'input',
  ports: [22],
  sets: { inet: ['allow4'], inet6: ['allow6'] },
  table: { family: 'inet', table: 'postern' },
  ...overrides,
});

const v4 = (ports: number[], sets: string[]) => managedRuleExpr({ addressFamily: 'inet', ports, sets });
const v6 = (ports: number[], sets: string[]) => managedRuleExpr({ addressFamily: 'inet6', ports, sets });

let nft: FakeRuleset;
let owner: NftRuleOwner;

/** The owner's io on the fake, as the driver does it. */
function io(fake: FakeRuleset): NftRuleIo {
  return {
    batch: async (commands) => {
      const result = await fake.run(['nft', '-j', '-f', '-'], { input: batchDocument(commands) });
      return result.code === 0 ? null : parseNftError(result.stderr);
    },
    readTable: async (table) => {
      const result = await fake.run(['nft', '-j', '-t', '-a', 'list', 'table', table.family, table.table]);
      return result.code === 0
        ? { table: parseTableListing(result.stdout, table) }
        : { error: parseNftError(result.stderr) };
    },
  };
}

beforeEach(() => {
  nft = new FakeRuleset();
  nft.addChain(TABLE, 'input', ADMIN_RULES);
  owner = new NftRuleOwner({ io: io(nft), logger: pino({ level: 'silent' }) });
});

describe('NftRuleOwner', () => {
  it('inserts one rule per family at the head of the chain, IPv4 first, in one batch', async () => {
    expect(await owner.converge([plan({ ports: [22, 443] })])).toEqual(new Map());

    expect(nft.batches()).toEqual([
      [
        {
          insert: {
            rule: {
              family: 'inet',
              table: 'postern',
              chain: 'input',
              comment: COMMENT,
              expr: v6([22, 443], ['allow6']),
            },
          },
        },
        {
          insert: {
            rule: {
              family: 'inet',
              table: 'postern',
              chain: 'input',
              comment: COMMENT,
              expr: v4([22, 443], ['allow4']),
            },
          },
        },
      ],
    ]);
    const rules = nft.rules(TABLE, 'input');
    expect(rules.map((rule) => rule.comment ?? '')).toEqual([COMMENT, COMMENT, '', '']);
    expect(rules[0]?.expr).toEqual([
      { match: { op: '==', left: { payload: { protocol: 'tcp', field: 'dport' } }, right: { set: [22, 443] } } },
      { match: { op: '!=', left: { payload: { protocol: 'ip', field: 'saddr' } }, right: '@allow4' } },
      { drop: null },
    ]);
  });

  it('writes nothing when the chain already holds the wanted rules first', async () => {
    await owner.converge([plan()]);
    nft.calls.length = 0;

    expect(await owner.converge([plan()])).toEqual(new Map());

    expect(nft.argvs()).toEqual(['-j -t -a list table inet postern']);
  });

  it('replaces the rules in one batch (delete the old handles, insert the new) when ports or sets change', async () => {
    await owner.converge([plan()]);
    const old = nft
      .rules(TABLE, 'input')
      .slice(0, 2)
      .map((rule) => rule.handle);
    nft.calls.length = 0;

    await owner.converge([plan({ ports: [22, 2222], sets: { inet: ['allow4', 'extra4'], inet6: ['allow6'] } })]);

    const [batch, ...more] = nft.batches();
    expect(more).toEqual([]);
    expect(batch?.slice(0, 2)).toEqual(
      old.map((handle) => ({ delete: { rule: { family: 'inet', table: 'postern', chain: 'input', handle } } })),
    );
    expect(batch?.slice(2).map((command) => command.insert?.rule?.expr)).toEqual([
      v6([22, 2222], ['allow6']),
      v4([22, 2222], ['allow4', 'extra4']),
    ]);
    expect(nft.rules(TABLE, 'input')).toHaveLength(4);
  });

  it('moves its rules back to the head when the admin put a rule above them', async () => {
    await owner.converge([plan()]);
    nft.rules(TABLE, 'input').unshift({ handle: 7, expr: [{ accept: null }] });

    await owner.converge([plan()]);

    expect(nft.rules(TABLE, 'input').map((rule) => rule.comment ?? rule.handle)).toEqual([
      COMMENT,
      COMMENT,
      7,
      expect.any(Number),
      expect.any(Number),
    ]);
  });

  it('replaces a marked rule that says something else (a counter added by hand)', async () => {
    nft
      .rules(TABLE, 'input')
      .unshift({ handle: 8, comment: COMMENT, expr: [{ counter: null }, ...v4([22], ['allow4'])] });

    await owner.converge([plan({ sets: { inet: ['allow4'], inet6: [] } })]);

    expect(nft.batches()[0]?.[0]).toEqual({
      delete: { rule: { family: 'inet', table: 'postern', chain: 'input', handle: 8 } },
    });
    expect(nft.rules(TABLE, 'input').filter((rule) => rule.comment === COMMENT)).toHaveLength(1);
  });

  it('removes its rules when no plan wants them, and never touches rules without the marker', async () => {
    await owner.converge([plan()]);
    nft.rules(TABLE, 'input').push({ handle: 9, comment: 'admin: postern is great', expr: [{ drop: null }] });

    expect(await owner.converge([])).toEqual(new Map());

    expect(nft.rules(TABLE, 'input').map((rule) => rule.comment ?? '')).toEqual(['', '', 'admin: postern is great']);
    // Nothing left there: the next call reads nothing.
    nft.calls.length = 0;
    await owner.converge([]);
    expect(nft.calls).toEqual([]);
  });

  it('keeps the rules of a backend whose ManagedRule cannot be read', async () => {
    await owner.converge([plan()]);
    nft.calls.length = 0;

    await owner.converge([], new Set(['b1']));

    expect(nft.batches()).toEqual([]);
    expect(nft.rules(TABLE, 'input').filter((rule) => rule.comment === COMMENT)).toHaveLength(2);
  });

  it('writes nothing and says why when the chain is not in the table', async () => {
    const failures = await owner.converge([plan({ chain: 'forward' })]);

    expect(failures).toEqual(new Map([['b1', 'table inet postern has no chain forward']]));
    expect(nft.batches()).toEqual([]);
  });

  it('reports what nft said when the batch fails (a set that does not exist)', async () => {
    const failing = new NftRuleOwner({
      io: { ...io(nft), batch: () => Promise.resolve('Could not process rule: No such file or directory') },
      logger: pino({ level: 'silent' }),
    });

    const failures = await failing.converge([plan()]);

    expect(failures.get('b1')).toBe(
      'nft could not write the managed rule (IPv4, IPv6) in chain inet postern input: Could not process rule: No such file or directory',
    );
  });

  it('looks for leftovers of an earlier run in the tables it is given, once', async () => {
    nft.rules(TABLE, 'input').unshift({ handle: 5, comment: managedRuleComment('gone'), expr: v4([22], ['allow4']) });
    const restarted = new NftRuleOwner({
      io: io(nft),
      logger: pino({ level: 'silent' }),
      leftoverTables: [
        { family: 'inet', table: 'postern' },
        { family: 'ip', table: 'absent' },
      ],
    });

    await restarted.converge([]);
    nft.calls.length = 0;
    await restarted.converge([]);

    expect(nft.rules(TABLE, 'input')).toHaveLength(2);
    expect(nft.calls).toEqual([]);
  });

  it('writes in an ip table the IPv4 rule only and in an ip6 table the IPv6 rule only', async () => {
    nft.addChain('ip filter4', 'input');
    nft.addChain('ip6 filter6', 'input');

    await owner.converge([
      plan({ backendId: 'four', table: { family: 'ip', table: 'filter4' } }),
      plan({ backendId: 'six', table: { family: 'ip6', table: 'filter6' } }),
    ]);

    expect(nft.rules('ip filter4', 'input').map((rule) => rule.expr)).toEqual([v4([22], ['allow4'])]);
    expect(nft.rules('ip6 filter6', 'input').map((rule) => rule.expr)).toEqual([v6([22], ['allow6'])]);
  });
});

describe('readManagedRuleExpr', () => {
  it('reads the rule as nft lists it and as it may be written (meta l4proto tcp th dport)', () => {
    expect(readManagedRuleExpr(v4([22, 443], ['b', 'a']))).toEqual({
      addressFamily: 'inet',
      ports: [22, 443],
      sets: ['a', 'b'],
    });
    expect(
      readManagedRuleExpr([
        { match: { op: '==', left: { meta: { key: 'l4proto' } }, right: 'tcp' } },
        { match: { op: '==', left: { payload: { protocol: 'th', field: 'dport' } }, right: 22 } },
        { match: { op: '!=', left: { payload: { protocol: 'ip6', field: 'saddr' } }, right: '@allow6' } },
        { drop: null },
      ]),
    ).toEqual({ addressFamily: 'inet6', ports: [22], sets: ['allow6'] });
  });

  it.each([
    ['another verdict', [...v4([22], ['a']).slice(0, -1), { accept: null }]],
    [
      'a match of the set (not its negation)',
      [
        v4([22], ['a'])[0],
        { match: { op: '==', left: { payload: { protocol: 'ip', field: 'saddr' } }, right: '@a' } },
        { drop: null },
      ],
    ],
    ['both families in one rule', [...v4([22], ['a']).slice(0, -1), v6([22], ['b'])[1], { drop: null }]],
    ['no set', [v4([22], ['a'])[0], { drop: null }]],
    [
      'a port range',
      [
        { match: { op: '==', left: { payload: { protocol: 'tcp', field: 'dport' } }, right: { range: [1, 2] } } },
        ...v4([22], ['a']).slice(1),
      ],
    ],
  ])('is null for %s', (_case, expr) => {
    expect(readManagedRuleExpr(expr)).toBeNull();
  });
});
