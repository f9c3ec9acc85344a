import type { ReactNode } from 'react';
import type { GetInputPropsReturnType } from '@mantine/form';
import type { ConfigValues } from './config-values';

/**
 * The part of a useZodForm form the config fields use, with string paths, so one component serves
 * any form that holds a config somewhere (`Config.fortios`, `Backend.Config.fortios`).
 */
export interface ConfigForm {
  getInputProps: (path: string, options?: { type?: 'input' | 'checkbox' }) => GetInputPropsReturnType;
  getValues: () => unknown;
  setFieldValue: (path: string, value: never) => void;
  insertListItem: (path: string, item: never) => void;
  removeListItem: (path: string, index: number) => void;
  errors: Record<string, ReactNode>;
}

/** The value at a dotted path of a form's values (undefined when absent). */
export function valueAt(values: unknown, path: string): unknown {
  let node: unknown = values;
  for (const part of path.split('.')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/** The config object at `path` ({} when the form holds none there yet). */
export function configAt(form: Pick<ConfigForm, 'getValues'>, path: string): ConfigValues {
  const value = valueAt(form.getValues(), path);
  return value !== null && typeof value === 'object' ? (value as ConfigValues) : {};
}

/** Sets a value at a path of a form whose value types the config components do not know. */
export function setConfigValue(form: Pick<ConfigForm, 'setFieldValue'>, path: string, value: unknown): void {
  form.setFieldValue(path, value as never);
}
