import { createContext, useContext, useEffect, useId, type ReactNode } from 'react';

/** Tells the Settings screen whether one form holds edits not yet saved. */
type Report = (formId: string, unsaved: boolean) => void;

const UnsavedReport = createContext<Report | null>(null);

/** Props of {@link UnsavedChangesScope}. */
export interface UnsavedChangesScopeProps {
  /** Hears of every form inside: its id (stable while mounted) and whether it has unsaved edits. */
  report: Report;
  children: ReactNode;
}

/** The forms inside report their unsaved edits here: one tab of the Settings screen. */
export function UnsavedChangesScope({ report, children }: UnsavedChangesScopeProps) {
  return <UnsavedReport.Provider value={report}>{children}</UnsavedReport.Provider>;
}

/**
 * Reports this form's unsaved edits to the enclosing scope (none outside one), and that it has none
 * once it unmounts: the Settings screen marks the tab, so edits left in a tab the admin switched
 * away from are seen, not silently lost.
 */
export function useReportUnsaved(unsaved: boolean): void {
  const report = useContext(UnsavedReport);
  const formId = useId();
  useEffect(() => {
    report?.(formId, unsaved);
  }, [report, formId, unsaved]);
  useEffect(() => () => report?.(formId, false), [report, formId]);
}
