// What the engine is given as a program: a .rung source (a string), a workflow document (an
// object, as docs/workflow.md describes it) or an explicit {name, text, kind}.

export function sourceOf(src, name) {
  if (typeof src === 'string') return { name: name ?? 'main.rung', text: src, kind: 'rung' };
  if (src && typeof src === 'object' && typeof src.text === 'string' && (src.kind === 'rung' || src.kind === 'workflow'))
    return { name: src.name ?? (src.kind === 'rung' ? 'main.rung' : 'workflow.json'), text: src.text, kind: src.kind };
  if (src && typeof src === 'object' && src.format === 'rung-workflow')
    return { name: name ?? `${src.name ?? 'workflow'}.json`, text: JSON.stringify(src), kind: 'workflow' };
  return null;
}
