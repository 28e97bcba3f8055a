// A large workflow document for the studio's performance test (docs/studio.md): COLUMNS x ROWS
// op nodes in a grid-shaped DAG. Column 0 reads the input x; each later node reads the node to
// its left (unary ops) or the two to its left and below-left (add, mul), so every edge is
// well-typed and the studio's own layout places the boxes in a COLUMNS x ROWS grid.
// Usage: node bench/gen-workflow.mjs [NODES] > big.workflow.json   (NODES default 1000)
export function bigWorkflow(count) {
  const rows = Math.max(1, Math.round(Math.sqrt(count / 2.5)));
  const ops = ["relu", "neg", "add", "exp", "mul", "tanh"];
  const doc = { format: "rung-workflow", version: 1, name: `grid_${count}`, tier: "debug", tolerance: "exact",
                inputs: [{ name: "x", type: "f32[N, 8]" }], nodes: [], edges: [], outputs: [] };
  const id = (i) => `n${i}`;
  for (let i = 0; i < count; ++i) {
    const column = Math.floor(i / rows), row = i % rows;
    const op = ops[i % ops.length];
    doc.nodes.push({ id: id(i), op });
    const left = column === 0 ? "x" : id(i - rows);
    if (op === "add" || op === "mul") {
      const other = column === 0 ? "x" : id((column - 1) * rows + ((row + 1) % rows));
      doc.edges.push({ from: left, to: `${id(i)}.a` }, { from: other, to: `${id(i)}.b` });
    } else {
      doc.edges.push({ from: left, to: `${id(i)}.x` });
    }
  }
  doc.outputs.push({ name: "y", from: id(count - 1) });
  return doc;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const nodes = Number(process.argv[2] ?? 1000);
  if (!Number.isInteger(nodes) || nodes < 1) {
    console.error("gen-workflow: NODES must be a positive integer");
    process.exit(2);
  }
  process.stdout.write(`${JSON.stringify(bigWorkflow(nodes), null, 1)}\n`);
}
