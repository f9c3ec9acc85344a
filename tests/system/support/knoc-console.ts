import type { Locator, Page } from 'playwright-core';
import { accessibilityViolations } from './axe.js';
import { screenshotPath } from './browser.js';
import { rawTextOnPage } from './raw-text.js';

/**
 * Driving the knoc wizards and the knocs list in a browser, as an admin does: the wizard's step
 * headings, its Next button, Mantine's searchable selects, and a record of every step (a screenshot
 * and the serious accessibility findings) for the tests to assert on.
 */

/** The wizard's current step heading (each step titles its panel with a level-2 heading). */
export function stepHeading(page: Page, title: string): Locator {
  return page.getByRole('heading', { level: 2, name: title, exact: true });
}

/** Presses Next (or its German twin) and waits for the next step's heading. */
export async function nextStep(page: Page, nextTitle: string, nextLabel = 'Next'): Promise<void> {
  await page.getByRole('button', { name: nextLabel, exact: true }).click();
  await stepHeading(page, nextTitle).waitFor();
}

/** Chooses `option` in the Mantine select labelled `label` (a combobox with its listbox). */
export async function pickOption(page: Page, label: string, option: string): Promise<void> {
  await page.getByRole('combobox', { name: label }).click();
  // The listbox is portalled to the body, outside the field's container.
  await page.getByRole('option', { name: option, exact: true }).click();
}

/** The name of the agent the wizard's agent step has chosen (its select's checked option). */
export function chosenAgent(page: Page): Promise<string> {
  return page.getByRole('combobox', { name: 'Agent' }).locator('option:checked').innerText();
}

/** Ticks a row in the users or groups step by its checkbox's label ("Select grace (test)"). */
export async function selectMember(page: Page, checkboxLabel: string): Promise<void> {
  await page.getByRole('checkbox', { name: checkboxLabel, exact: true }).check();
}

/**
 * Screenshots and findings of each step a test walks: serious accessibility violations, and raw text
 * keys or values shown where words belong (support/raw-text.ts).
 */
export class StepRecorder {
  readonly violations: string[] = [];

  constructor(
    private readonly page: Page,
    private readonly prefix: string,
  ) {}

  /** Records this step: a full-page screenshot named after it, what axe finds serious and any raw text on it. */
  async record(step: string): Promise<void> {
    // Colours caught half-way through a transition (a field's focus ring, a fading overlay) are not
    // the page's: axe looks once every running animation and transition has ended.
    await this.page.evaluate(() => {
      const { document } = globalThis as unknown as {
        document: { getAnimations(): { finished: Promise<unknown> }[] };
      };
      return Promise.all(document.getAnimations().map((animation) => animation.finished.catch(() => undefined)));
    });
    const found = await accessibilityViolations(this.page);
    this.violations.push(...found.map((line) => `${this.prefix}-${step}: ${line}`));
    this.violations.push(...(await rawTextOnPage(this.page)).map((line) => `${this.prefix}-${step}: ${line}`));
    await this.page.screenshot({
      path: screenshotPath(`${this.prefix}-${step}`),
      fullPage: true,
      animations: 'disabled',
    });
  }
}
