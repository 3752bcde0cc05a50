/** The console's base path ("" or like "/chorus"), as `chorus serve` wrote it into index.html. */
export const BASE: string = (
  document.querySelector('meta[name="chorus-base"]')?.getAttribute('content') ?? '/chorus'
).replace(/\/+$/, '');

export const API_BASE = `${BASE}/api`;
