import type { KnocRecord } from '@postern/protocol';
import { knocDetails } from '../knoc-types';
import { useTextRef } from './use-knoc-labels';

/** The knoc's Details text: its set names, proxy ACL, vendor group or "Allowlist". */
export function KnocDetails({ knoc }: { knoc: KnocRecord }) {
  const translate = useTextRef();
  return <>{translate(knocDetails(knoc))}</>;
}
