// One op box: its op and id, its attributes (editable, by the kind the registry declares),
// a handle per operand (left) and result (right) with `data-port` = node.port as edges are
// spelled, and its diagnostics. An unresolved op keeps the ports its edges name.
import { Handle, type NodeProps, Position } from "@xyflow/react";
import { memo, useContext } from "react";
import { AttrField } from "./AttrField";
import { EditContext } from "./editContext";
import type { OpNodeData } from "./toFlow";

function OpNodeView({ data }: NodeProps) {
  const d = data as OpNodeData;
  const edit = useContext(EditContext);
  const id = d.node.id;
  const given = Object.keys(d.node.attrs ?? {});
  const attrs = d.op ? d.op.attributes.map((a) => a.name) : given;
  const extra = d.op ? given.filter((k) => !attrs.includes(k)) : [];
  return (
    <div className={`op-node${d.diagnostics.length ? " has-error" : ""}${d.op ? "" : " unresolved"}`} data-node-id={id} data-op={d.node.op}>
      <div className="op-title">
        <span className="op-name">{d.node.op}</span> <span className="op-id">{id}</span>
      </div>
      <div className="op-ports">
        <div className="port-column">
        {d.operands.map((p) => (
          <div key={`in-${p.name}`} className="port port-in">
            <Handle type="target" position={Position.Left} id={p.name} data-port={`${id}.${p.name}`} className="handle" />
            <span>
              {p.name}
              {p.variadic ? "…" : p.optional ? "?" : ""}
            </span>
          </div>
        ))}
        </div>
        <div className="port-column">
        {d.results.map((p) => (
          <div key={`out-${p.name}`} className="port port-out">
            <span>{p.name}</span>
            <Handle type="source" position={Position.Right} id={p.name} data-port={`${id}.${p.name}`} className="handle" />
          </div>
        ))}
        </div>
      </div>
      {[...attrs, ...extra].length > 0 && (
        <div className="op-attrs nodrag">
          {[...attrs, ...extra].map((name) => (
            <AttrField key={name} nodeId={id} name={name} spec={d.op?.attributes.find((a) => a.name === name)} value={d.node.attrs?.[name]} readOnly={d.readOnly} onSet={edit.setAttr} />
          ))}
        </div>
      )}
      {d.diagnostics.map((x, i) => (
        <div key={i} className="diag" data-diag={x.code}>
          {x.code} {x.message}
          {x.notes?.map((n) => ` — ${n}`).join("")}
        </div>
      ))}
    </div>
  );
}

export const OpNode = memo(OpNodeView);
