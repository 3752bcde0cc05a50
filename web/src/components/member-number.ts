/**
 * A member's QQ number as shown: below the write level the server sends a negative stand-in
 * instead (docs/rules.md#console-member-numbers), shown as 「已隐藏」 / "hidden".
 */
export function memberNumber(value: number | string | undefined, t: (key: string) => string): string {
  if (value === undefined || value === '') return '?';
  return Number(value) < 0 ? t('app.hiddenMember') : String(value);
}
