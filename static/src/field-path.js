// Reading a value at a field path as the engine reports defaulted fields:
// "spec.template.spec.containers[0].imagePullPolicy", "metadata.labels['kubernetes.io/metadata.name']".

const STEP = /([^.[\]]+)|\[(\d+)\]|\['([^']*)'\]/g;

/** The value at `path` in `object`, or undefined when the path leads nowhere. */
export function valueAt(object, path) {
  let node = object;
  for (const [, key, index, quoted] of String(path).matchAll(STEP)) {
    if (node === null || typeof node !== "object") return undefined;
    node = node[key ?? quoted ?? Number(index)];
  }
  return node;
}
