import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/**
 * axe-core, the accessibility engine, run inside the page under test. Its script comes from the
 * installed package (never downloaded at run time) and is injected as an inline script, so the page's
 * context needs `bypassCSP: true`: Postern's CSP rightly refuses inline scripts.
 */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * How axe runs: every rule, every impact refused (minor and moderate too, so the screens stay at 0).
 * One exemption, for the exact elements it concerns: the `region` rule (all content inside a
 * landmark) takes an open menu, tooltip or modal dialog as a region of its own. Mantine renders each
 * in a portal at the end of <body>, outside every landmark; each is a transient popup tied to what
 * opened it (a menu to its button, a tooltip to the element it describes, a modal named by its title
 * and hiding the rest of the page from assistive technology), not page content anyone looks for by
 * landmark. Rendering them in place instead would let a scrolling container clip them.
 */
const AXE_CHECKS = [
  { id: 'region', options: { regionMatcher: '[role="menu"], [role="tooltip"], [role="dialog"][aria-modal="true"]' } },
];

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

/**
 * Runs every axe rule on the page as it is now and describes each violation, whatever its impact, as
 * one line (impact, rule, help text, the elements involved), so a failing assertion says what to fix.
 */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  // Colours are judged as they end up, not halfway through a transition (after a colour-mode switch).
  await page.evaluate(async () => {
    interface RunningAnimation {
      finished: Promise<unknown>;
      effect: { getComputedTiming(): { endTime?: number | string } } | null;
    }
    const animations = (
      globalThis as unknown as { document: { getAnimations(): RunningAnimation[] } }
    ).document.getAnimations();
    // A spinner runs forever and never settles: only the animations that end are waited for, and at
    // most a second.
    const ending = animations.filter((animation) =>
      Number.isFinite(Number(animation.effect?.getComputedTiming().endTime)),
    );
    await Promise.race([
      Promise.all(ending.map((animation) => animation.finished.catch(() => undefined))),
      new Promise((resolve) => setTimeout(resolve, 1_000)),
    ]);
  });
  const injected = await page.evaluate(() => 'axe' in globalThis);
  if (!injected) await page.addScriptTag({ content: AXE_SOURCE });
  const violations = await page.evaluate(async (checks) => {
    const axe = (
      globalThis as unknown as {
        axe: {
          configure(spec: { checks: typeof AXE_CHECKS }): void;
          run(context: unknown, options: object): Promise<{ violations: AxeViolation[] }>;
        };
      }
    ).axe;
    axe.configure({ checks });
    // Only the violations are wanted: axe then spends no time detailing what passed. Label in name
    // (WCAG 2.5.3: a control's name contains its visible text) is one of axe's experimental rules,
    // off unless asked for.
    const result = await axe.run((globalThis as unknown as { document: unknown }).document, {
      resultTypes: ['violations'],
      rules: { 'label-content-name-mismatch': { enabled: true } },
    });
    return result.violations.map(({ id, impact, help, nodes }) => ({
      id,
      impact,
      help,
      nodes: nodes.map(({ target, failureSummary }) => ({ target, failureSummary })),
    }));
  }, AXE_CHECKS);
  return violations.map(
    (violation) =>
      `${violation.impact}: ${violation.id} (${violation.help}) at ${violation.nodes
        .map(
          (node) =>
            `${JSON.stringify(node.target)}${node.failureSummary === undefined ? '' : ` [${node.failureSummary.replace(/\s+/g, ' ')}]`}`,
        )
        .join('; ')}`,
  );
}
