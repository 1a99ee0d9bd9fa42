// A fix value keeps the type of the field it is written to (issue 33): what a person types
// is text, and the target field's type — from the vendor's own metadata — says whether it
// is sent as a string ("01067" stays "01067"), a number, a boolean or a date. Without
// metadata the proposal's own value decides: a number stays a number, a boolean a boolean,
// anything else is sent as the text typed. A number is sent with the digits typed (or
// read): 12345678901234567891 is not the float64 12345678901234567000, which would write
// a value nobody typed. Also: where an approve writes, in words.
import { jsonNumber, parseJSON, unsure } from "../api/client";
import type { FlowSystem, Proposal } from "../api/types";

/** The vendors' names of the systems, as people know them. */
export const VENDORS: Record<FlowSystem, string> = {
  hosterp: "NetSuite", erp2: "Business Central", crm: "Salesforce", marketing: "Mailchimp", shipping: "ShipStation",
};

/** FieldKind is how a value is typed; null when nothing says (no metadata, or a vendor type
 *  the service writes as given: an address, a sublist, a NetSuite reference object). */
export type FieldKind = "string" | "integer" | "decimal" | "boolean" | "date" | "datetime" | "reference" | "structured";

// The vendors' own type names, as the service reads them (connector.ValueType, whose
// comment cites each vendor's documentation); kept in step with it so that the console
// refuses what the approve would refuse. Two differences, both of input only: a date and
// time gets its own kind (typed as text in RFC 3339, not picked as a day), and an untyped
// field is typed by the value it holds.
const KINDS: Record<FlowSystem, Record<string, FieldKind>> = {
  hosterp: { string: "string", integer: "integer", number: "decimal", boolean: "boolean" },
  erp2: { "edm.string": "string", "edm.int16": "integer", "edm.int32": "integer", "edm.int64": "integer", "edm.byte": "integer",
    "edm.decimal": "decimal", "edm.double": "decimal", "edm.single": "decimal", "edm.boolean": "boolean", "edm.date": "date",
    "edm.datetimeoffset": "datetime", "edm.guid": "reference" },
  crm: { string: "string", textarea: "string", picklist: "string", multipicklist: "string", combobox: "string", email: "string",
    phone: "string", url: "string", encryptedstring: "string", int: "integer", long: "integer", double: "decimal",
    currency: "decimal", percent: "decimal", boolean: "boolean", date: "date", datetime: "datetime", reference: "reference", id: "reference" },
  // A merge field's date is written in the audience's own date_format: text, not ISO.
  marketing: { string: "string", text: "string", phone: "string", url: "string", imageurl: "string", dropdown: "string",
    radio: "string", zip: "string", birthday: "string", date: "string", number: "decimal", boolean: "boolean" },
  shipping: { string: "string", number: "decimal", boolean: "boolean" },
};

/** kindOf is the kind of a field of system whose vendor type is vendorType; null if untyped. */
export function kindOf(system: FlowSystem, vendorType: string | undefined): FieldKind | null {
  return vendorType ? KINDS[system]?.[vendorType.toLowerCase()] ?? null : null;
}

/** effectiveKind is the field's kind, or without one the kind of the value it holds now. */
export function effectiveKind(kind: FieldKind | null, held?: unknown): FieldKind {
  if (kind) return kind;
  if (typeof held === "number" || isRaw(held)) return "decimal";
  if (typeof held === "boolean") return "boolean";
  return held !== null && typeof held === "object" ? "structured" : "string";
}

/** Typed is a value ready to send, or why the text cannot be one. */
export type Typed = { ok: true; value: unknown } | { ok: false; error: string };

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** isRaw says whether v is a number kept as its JSON text (a JSON.rawJSON object). */
const isRaw = (v: unknown): boolean => !!(JSON as { isRawJSON?: (v: unknown) => boolean }).isRawJSON?.(v);

/** TOO_LONG is why a browser without exact JSON numbers refuses a long one. */
const TOO_LONG = "has more digits than this browser can send exactly: use a current browser (Chrome 114, Firefox 135, Safari 18.4 or later)";

/** number is the typed number text s as JSON writes it ("+007." is 7): a plain number, or
 *  with more digits than a float64 holds the text itself, never a rounding of it. */
function number(s: string, error: string): Typed {
  const [, sign, whole, frac] = /^([+-]?)(\d*)\.?(\d*)$/.exec(s)!;
  const json = (sign === "-" ? "-" : "") + (whole.replace(/^0+(?=\d)/, "") || "0") + (frac ? "." + frac : "");
  if (!Number.isFinite(Number(json))) return { ok: false, error };
  // A browser that cannot send "12.50" as typed sends 12.5, the same number: only digits
  // a float64 would lose are refused there, not a fraction's trailing zeros.
  const value = jsonNumber(json) ?? (json.includes(".") ? jsonNumber(json.replace(/\.?0+$/, "")) : undefined);
  return value === undefined ? { ok: false, error: TOO_LONG } : { ok: true, value };
}

/** typed turns the text typed for a field into the value sent. kind is the field's (null
 *  without metadata); held is the value the field holds in the proposal or the record. */
export function typed(text: string, kind: FieldKind | null, held?: unknown): Typed {
  const s = text.trim();
  switch (effectiveKind(kind, held)) {
    case "boolean":
      return s === "true" || s === "false" ? { ok: true, value: s === "true" } : { ok: false, error: "takes true or false" };
    case "integer":
      return INTEGER.test(s) ? number(s, "takes a whole number, such as 12") : { ok: false, error: "takes a whole number, such as 12" };
    case "decimal":
      return DECIMAL.test(s) ? number(s, "takes a number, such as 12.50") : { ok: false, error: "takes a number, such as 12.50" };
    case "date":
      return DATE.test(s) && !Number.isNaN(Date.parse(s)) ? { ok: true, value: s } : { ok: false, error: "takes a date, such as 2026-03-31" };
    case "datetime":
      return DATETIME.test(s) && !Number.isNaN(Date.parse(s)) ? { ok: true, value: s } : { ok: false, error: "takes a date and time, such as 2026-03-31T09:30:00Z" };
    case "reference":
      return s ? { ok: true, value: s } : { ok: false, error: "takes a record id" };
    case "structured":
      try {
        const v = parseJSON(s);
        if (unsure(v)) return { ok: false, error: TOO_LONG };
        if (v !== null && typeof v === "object" && !isRaw(v)) return { ok: true, value: v };
      } catch {
        // said below
      }
      return { ok: false, error: "takes JSON: an object or a list" };
  }
  return { ok: true, value: text }; // text as typed: leading zeros and spaces are the value
}

/** Target is the record an approve writes to. */
export interface Target { system: FlowSystem; vendor: string; recordType: string; recordId: string }

/** writeTarget is where an approve writes: the row's writesTo, as the service says it; from
 *  a service that does not say, the same rule read here (a flow's failed write is fixed
 *  where the flow wrote, anything else on the host ERP's record). */
export function writeTarget(row: Proposal): Target {
  const w = row.writesTo;
  if (w && w.system in VENDORS) return { ...w, system: w.system as FlowSystem };
  const t = (row.error.context as { flow?: { target?: unknown } } | undefined)?.flow?.target;
  const system = typeof t === "string" && t in VENDORS ? (t as FlowSystem) : "hosterp";
  return { system, vendor: VENDORS[system], recordType: row.recordType, recordId: row.recordId };
}

/** writesSentence says what an approve writes and where, values JSON-quoted so that "01067"
 *  and 01067 read differently: Approve writes shipzip = "01067" to NetSuite salesOrder SO-10042. */
export function writesSentence(changes: { path: string; after: unknown }[], to: Target): string {
  // ≈: a value this browser may have rounded (the service writes its exact one).
  const what = changes.map((c) => `${c.path} = ${unsure(c.after) ? "≈ " : ""}${JSON.stringify(c.after) ?? "null"}`).join(", ");
  return `Approve writes ${what} to ${to.vendor} ${to.recordType} ${to.recordId}`;
}
