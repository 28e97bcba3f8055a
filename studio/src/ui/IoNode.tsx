// A workflow input (a source handle, `data-port` = its name, as edges spell it) or output
// (a target handle, `data-port` = out:NAME).
import { Handle, type NodeProps, Position } from "@xyflow/react";
import { memo } from "react";
import { inputKey, outputKey } from "../edit/state";
import type { IoNodeData } from "./toFlow";

function IoNodeView({ data }: NodeProps) {
  const d = data as IoNodeData;
  const key = d.role === "input" ? inputKey(d.name) : outputKey(d.name);
  return (
    <div className={`io-node io-${d.role}${d.diagnostics.length ? " has-error" : ""}`} data-node-id={key}>
      {d.role === "output" && <Handle type="target" position={Position.Left} id="value" data-port={key} className="handle" />}
      <div className="io-title">
        {d.role} <b>{d.name}</b>
      </div>
      <div className="io-detail">{d.detail}</div>
      {d.diagnostics.map((x, i) => (
        <div key={i} className="diag" data-diag={x.code}>
          {x.code} {x.message}
        </div>
      ))}
      {d.role === "input" && <Handle type="source" position={Position.Right} id="value" data-port={d.name} className="handle" />}
    </div>
  );
}

export const IoNode = memo(IoNodeView);
