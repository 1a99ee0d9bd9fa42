import{a,b,c,d,e,f}from"./chunk-R5RW7OD4.js";import"./chunk-3RKYE2QI.js";export{f as AutoApplied,a as REVERT_MS,b as RevertAction,c as recordName,e as revertEntry,d as ruleApplied};
