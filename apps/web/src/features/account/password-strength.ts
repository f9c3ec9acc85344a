/** zxcvbn's score: 0 (very weak) to 4 (very strong). */
export type StrengthScore = 0 | 1 | 2 | 3 | 4;

/** The translation key suffix of each score (spec §4: Very weak, Weak, Acceptable, Strong, Very strong). */
export const STRENGTH_LEVELS = ['veryWeak', 'weak', 'acceptable', 'strong', 'veryStrong'] as const;

/** Rates a password; `userInputs` are words that make it weaker when it contains them (the person's names). */
export type StrengthChecker = (password: string, userInputs: readonly string[]) => StrengthScore;

/** The dictionary sets the checker can be built with. */
export type StrengthDictionaries = 'en' | 'en+de';

/** The dictionaries for a UI language: English always, German as well for German speakers. */
export function dictionariesFor(language: string): StrengthDictionaries {
  return language.toLowerCase().startsWith('de') ? 'en+de' : 'en';
}

const checkers = new Map<StrengthDictionaries, Promise<StrengthChecker>>();

/** language-de 3.x names its lists without a language suffix; suffix them so no list can shadow another. */
function suffixed(dictionary: Record<string, string[]>, suffix: string): Record<string, string[]> {
  return Object.fromEntries(Object.entries(dictionary).map(([name, words]) => [`${name}-${suffix}`, words]));
}

async function buildChecker(dictionaries: StrengthDictionaries): Promise<StrengthChecker> {
  // Megabytes of word lists: fetched only here, when a password is being chosen, never up front.
  const [{ ZxcvbnFactory }, common, english, german] = await Promise.all([
    import('@zxcvbn-ts/core'),
    import('@zxcvbn-ts/language-common'),
    import('@zxcvbn-ts/language-en'),
    dictionaries === 'en+de' ? import('@zxcvbn-ts/language-de') : Promise.resolve(null),
  ]);
  const zxcvbn = new ZxcvbnFactory({
    dictionary: {
      ...common.dictionary,
      ...english.dictionary,
      ...(german === null ? {} : suffixed(german.dictionary, 'de')),
    },
    graphs: common.adjacencyGraphs,
    translations: english.translations,
  });
  return (password, userInputs) => zxcvbn.check(password, [...userInputs]).score;
}

/**
 * The strength checker with the dictionaries of `dictionaries`, loaded once per page (a failed
 * download is forgotten, so the next dialog tries again).
 */
export function loadStrengthChecker(dictionaries: StrengthDictionaries): Promise<StrengthChecker> {
  let checker = checkers.get(dictionaries);
  if (checker === undefined) {
    checker = buildChecker(dictionaries);
    checkers.set(dictionaries, checker);
    checker.catch(() => checkers.delete(dictionaries));
  }
  return checker;
}
