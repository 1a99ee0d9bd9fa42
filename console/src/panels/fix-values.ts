// A fix value keeps the type of the field it is written to (issue 33): what a person types
// is text, and the target field's type — from the vendor's own metadata — says whether it
// is sent as a string ("01067" stays "01067"), a number, a boolean or a date. Without
// metadata the proposal's own value decides: a number stays a number, a boolean a boolean,
// anything else is sent as the text typed. Also: where an approve writes, in words.
import type { FlowSystem, Proposal } from "../api/types";

/** The vendors' names of the systems, as people know them. */
export const VENDORS: Record<FlowSystem, string> = {
  hosterp: "NetSuite", erp2: "Business Central", crm: "Salesforce", marketing: "Mailchimp", shipping: "ShipStation",
};

/** FieldKind is how a value is typed; null when nothing says (no metadata). */
export type FieldKind = "string" | "integer" | "decimal" | "boolean" | "date" | "datetime" | "structured";

/** kindOf reads a vendor's own type name: JSON schema (NetSuite's metadata catalogue,
 *  ShipStation's models), OData EDM (Business Central), Salesforce describe and Mailchimp
 *  merge-field types. A type it does not know is text, which every vendor accepts. */
export function kindOf(vendorType: string | undefined): FieldKind | null {
  if (!vendorType) return null;
  const t = vendorType.toLowerCase();
  if (t.endsWith("[]") || t === "array" || t === "object" || t === "address") return "structured";
  if (["boolean", "edm.boolean", "checkbox"].includes(t)) return "boolean";
  if (["integer", "int", "long", "edm.int16", "edm.int32", "edm.int64", "edm.byte", "edm.sbyte"].includes(t)) return "integer";
  if (["number", "double", "decimal", "float", "currency", "percent", "edm.decimal", "edm.double", "edm.single"].includes(t)) return "decimal";
  if (t === "date" || t === "edm.date") return "date";
  if (t === "datetime" || t === "edm.datetimeoffset") return "datetime";
  return "string";
}

/** Typed is a value ready to send, or why the text cannot be one. */
export type Typed = { ok: true; value: unknown } | { ok: false; error: string };

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** typed turns the text typed for a field into the value sent. kind is the field's (null
 *  without metadata); proposed is the proposal's own value for the field, if any. */
export function typed(text: string, kind: FieldKind | null, proposed?: unknown): Typed {
  const k = kind ?? (typeof proposed === "number" ? "decimal" : typeof proposed === "boolean" ? "boolean" : "string");
  const s = text.trim();
  switch (k) {
    case "boolean":
      return s === "true" || s === "false" ? { ok: true, value: s === "true" } : { ok: false, error: "takes true or false" };
    case "integer":
      return INTEGER.test(s) && Number.isSafeInteger(Number(s)) ? { ok: true, value: Number(s) } : { ok: false, error: "takes a whole number, such as 12" };
    case "decimal":
      return DECIMAL.test(s) && Number.isFinite(Number(s)) ? { ok: true, value: Number(s) } : { ok: false, error: "takes a number, such as 12.50" };
    case "date":
      return DATE.test(s) && !Number.isNaN(Date.parse(s)) ? { ok: true, value: s } : { ok: false, error: "takes a date, such as 2026-03-31" };
    case "datetime":
      return s && !Number.isNaN(Date.parse(s)) ? { ok: true, value: s } : { ok: false, error: "takes a date and time, such as 2026-03-31T09:30:00Z" };
    case "structured":
      try {
        const v: unknown = JSON.parse(s);
        if (v !== null && typeof v === "object") return { ok: true, value: v };
      } catch {
        // said below
      }
      return { ok: false, error: "takes JSON: an object or a list" };
  }
  return { ok: true, value: text }; // text as typed: leading zeros and spaces are the value
}

/** writeTarget is the system an approve writes to: a flow's failed write is fixed where the
 *  flow wrote; everything else is the host ERP's record (the service's fix writer). */
export function writeTarget(row: Proposal): FlowSystem {
  const flow = (row.error.context as { flow?: { target?: unknown } } | undefined)?.flow;
  const t = flow?.target;
  return typeof t === "string" && t in VENDORS ? (t as FlowSystem) : "hosterp";
}

/** writesSentence says what an approve writes and where, values JSON-quoted so that "01067"
 *  and 01067 read differently: Approve writes shipzip = "01067" to NetSuite salesOrder SO-10042. */
export function writesSentence(changes: { path: string; after: unknown }[], system: FlowSystem, recordType: string, recordId: string): string {
  const what = changes.map((c) => `${c.path} = ${JSON.stringify(c.after) ?? "null"}`).join(", ");
  return `Approve writes ${what} to ${VENDORS[system]} ${recordType} ${recordId}`;
}
