import { useDeferredValue, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { dictionariesFor, loadStrengthChecker, type StrengthChecker, type StrengthScore } from './password-strength';

/** The strength of a password being typed: a score, `'loading'` until the checker is there, or null. */
export type PasswordStrength = StrengthScore | 'loading' | null;

/**
 * Loads the strength checker (with the dictionaries of the UI language) once `enabled` turns true,
 * then rates `password`. Null for an empty password, or when the checker could not be loaded: the
 * meter is a help, never a reason the dialog cannot be used.
 */
export function usePasswordStrength(password: string, userInputs: readonly string[], enabled: boolean) {
  const { i18n } = useTranslation();
  const dictionaries = dictionariesFor(i18n.language);
  const [loaded, setLoaded] = useState<{ dictionaries: string; check: StrengthChecker | null } | null>(null);

  useEffect(() => {
    if (!enabled) return undefined;
    let current = true;
    loadStrengthChecker(dictionaries).then(
      (check) => current && setLoaded({ dictionaries, check }),
      () => current && setLoaded({ dictionaries, check: null }),
    );
    return () => {
      current = false;
    };
  }, [enabled, dictionaries]);

  // Rating runs on a deferred copy, so typing never waits for it.
  const deferredPassword = useDeferredValue(password);
  const check = loaded?.dictionaries === dictionaries ? loaded.check : undefined;
  const inputsKey = userInputs.join('\n');

  return useMemo((): PasswordStrength => {
    if (deferredPassword === '') return null;
    if (check === undefined) return 'loading';
    if (check === null) return null;
    return check(
      deferredPassword,
      inputsKey.split('\n').filter((input) => input !== ''),
    );
  }, [deferredPassword, check, inputsKey]);
}
