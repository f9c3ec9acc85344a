import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/**
 * axe-core, the accessibility engine, run inside the page under test. Its script comes from the
 * installed package (never downloaded at run time) and is injected as an inline script, so the page's
 * context needs `bypassCSP: true`: Postern's CSP rightly refuses inline scripts.
 */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The impacts a test refuses. */
const REFUSED_IMPACTS = new Set(['serious', 'critical']);

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

/**
 * Runs every axe rule on the page as it is now and describes each serious or critical violation as
 * one line (rule, help text, the elements involved), so a failing assertion says what to fix.
 */
export async function seriousAccessibilityViolations(page: Page): Promise<string[]> {
  // Colours are judged as they end up, not halfway through a transition (after a colour-mode switch).
  await page.evaluate(async () => {
    const animations = (
      globalThis as unknown as { document: { getAnimations(): { finished: Promise<unknown> }[] } }
    ).document.getAnimations();
    // A spinner runs forever: wait at most a second.
    await Promise.race([
      Promise.all(animations.map((animation) => animation.finished.catch(() => undefined))),
      new Promise((resolve) => setTimeout(resolve, 1_000)),
    ]);
  });
  const injected = await page.evaluate(() => 'axe' in globalThis);
  if (!injected) await page.addScriptTag({ content: AXE_SOURCE });
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run();
    return result.violations.map(({ id, impact, help, nodes }) => ({
      id,
      impact,
      help,
      nodes: nodes.map(({ target, failureSummary }) => ({ target, failureSummary })),
    }));
  });
  return violations
    .filter((violation) => REFUSED_IMPACTS.has(violation.impact ?? ''))
    .map(
      (violation) =>
        `${violation.impact}: ${violation.id} (${violation.help}) at ${violation.nodes
          .map(
            (node) =>
              `${JSON.stringify(node.target)}${node.failureSummary === undefined ? '' : ` [${node.failureSummary.replace(/\s+/g, ' ')}]`}`,
          )
          .join('; ')}`,
    );
}
