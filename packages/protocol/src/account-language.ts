import { z } from 'zod';

/**
 * The languages the web app ships texts for. An account's preference is one of them, or null when it
 * never chose: the browser's language (or `?lng=`) decides then.
 */
export const ACCOUNT_LANGUAGES = ['en', 'de'] as const;
export const AccountLanguage = z.enum(ACCOUNT_LANGUAGES);
export type AccountLanguage = z.infer<typeof AccountLanguage>;

/** PUT /api/account/language and PUT /api/admin/account/language: the signed-in account's own choice. */
export const AccountLanguageBody = z.object({ Language: AccountLanguage });
export type AccountLanguageBody = z.infer<typeof AccountLanguageBody>;
