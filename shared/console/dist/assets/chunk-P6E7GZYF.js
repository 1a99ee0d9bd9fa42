import{a,b,c,d,e}from"./chunk-I52PNWM6.js";import"./chunk-UAHQD3IY.js";export{e as AutoApplied,a as REVERT_MS,b as RevertAction,d as revertEntry,c as ruleApplied};
