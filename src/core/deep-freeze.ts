// Objects shared between callers (cached answers, parsed index rows) are frozen all the way down, so
// no caller can change what another reads. Stops at objects already frozen.
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
