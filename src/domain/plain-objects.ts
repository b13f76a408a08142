/**
 * Copies of plain JSON objects with fields added, one property at a time. `{ ...from, [key]: value }`
 * spells the same object, but in V8 (Node 20) the object a spread makes has a map (hidden class) that
 * takes no transitions, so the field added after it makes a new map and descriptor array for every
 * object: under S8 (a create a request) ~120,000 maps in a measured period, all of them old-space
 * garbage — a Mark-Compact every few seconds — and a cold inline cache wherever the item is read
 * (`node --log-maps`, docs/architecture.md). An object filled from `{}` shares its maps with every
 * other object of its keys. Only own enumerable string keys are copied, as a spread of a JSON value
 * does (it has no symbols and no accessors); `__proto__` stays an own property, as a spread keeps it.
 */

type Plain = Record<string, unknown>;

/** Sets an own data property; `o.__proto__ = v` would set the prototype instead. */
function put(o: Plain, k: string, v: unknown): void {
  if (k === '__proto__')
    Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  else o[k] = v;
}

/** Copies `from`'s own enumerable string keys into `into`, in order (`Object.assign`, minus its setters). */
export function assignPlain(into: Plain, from: Readonly<Plain>): Plain {
  const keys = Object.keys(from);
  for (let i = 0; i < keys.length; i++) put(into, keys[i], from[keys[i]]);
  return into;
}

/** `{ ...from, [key]: value }`. */
export function withField(from: Readonly<Plain>, key: string, value: unknown): Plain {
  const out = assignPlain({}, from);
  put(out, key, value);
  return out;
}

/** `{ ...a, ...b }`. */
export function mergedPlain(a: Readonly<Plain>, b: Readonly<Plain>): Plain {
  return assignPlain(assignPlain({}, a), b);
}
