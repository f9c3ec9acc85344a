import type { MantineColorsTuple } from '@mantine/core';

/** Icy blue, lightest to darkest (Mantine uses shade 6 as the main one in light mode). */
export const iceberg: MantineColorsTuple = [
  '#e7f7fd',
  '#d4ecf6',
  '#a8d8eb',
  '#79c2e0',
  '#53b0d7',
  '#3ba5d2',
  '#2b9fd0',
  '#1a8ab8',
  '#057ba5',
  '#006a91',
];

/** Pink-red. */
export const rose: MantineColorsTuple = [
  '#ffe9f0',
  '#fcd2de',
  '#f5a3ba',
  '#ef7194',
  '#e94774',
  '#e62c60',
  '#e51d55',
  '#cc0f46',
  '#b6033d',
  '#a00034',
];

/** Warm orange. */
export const offsite: MantineColorsTuple = [
  '#fff3e2',
  '#ffe6cc',
  '#ffcc9b',
  '#ffb064',
  '#fe9837',
  '#fe891a',
  '#fe8109',
  '#e36e00',
  '#ca6100',
  '#b05200',
];
