/** A UTF-8 byte order mark: without it, spreadsheet programs read umlauts in a CSV as mojibake. */
const UTF8_BOM = '\uFEFF';

/** Makes the browser save `text` as a file named `fileName`, without a round trip to the server. */
export function downloadTextFile(fileName: string, text: string, type = 'text/csv;charset=utf-8'): void {
  const url = URL.createObjectURL(new Blob([UTF8_BOM, text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked on the next turn: some browsers start the download only after click() returns.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
