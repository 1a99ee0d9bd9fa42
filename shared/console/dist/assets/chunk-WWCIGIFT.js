import{a,b,c,d,e,f}from"./chunk-PCPPSVFP.js";import"./chunk-QI7OBEPR.js";export{f as AutoApplied,a as REVERT_MS,b as RevertAction,c as recordName,e as revertEntry,d as ruleApplied};
