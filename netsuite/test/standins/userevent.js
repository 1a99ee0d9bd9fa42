'use strict';
// The context a user event entry point receives ("afterSubmit(context)",
// "context.UserEventType"): newRecord, oldRecord, type, and the enum of event types, whose
// values are the lower-case strings context.type carries.
const UserEventType = Object.freeze({
  APPROVE: 'approve', CANCEL: 'cancel', CHANGEPASSWORD: 'changepassword', COPY: 'copy', CREATE: 'create',
  DELETE: 'delete', DROPSHIP: 'dropship', EDIT: 'edit', EDITFORECAST: 'editforecast', EMAIL: 'email',
  MARKCOMPLETE: 'markcomplete', ORDERITEMS: 'orderitems', PACK: 'pack', PAYBILLS: 'paybills', PRINT: 'print',
  QUICKVIEW: 'quickview', REASSIGN: 'reassign', REJECT: 'reject', SHIP: 'ship', SPECIALORDER: 'specialorder',
  TRANSFORM: 'transform', VIEW: 'view', XEDIT: 'xedit',
});

function afterSubmitContext(type, newRecord, oldRecord) {
  if (Object.values(UserEventType).indexOf(type) < 0) throw new Error(`${type} is not a context.UserEventType value`);
  return Object.freeze({ type, newRecord, oldRecord: oldRecord || null, UserEventType });
}

module.exports = { UserEventType, afterSubmitContext };
