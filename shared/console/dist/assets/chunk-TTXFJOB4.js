import{a,b,c,d,e,f}from"./chunk-A5COCXSP.js";import"./chunk-3RKYE2QI.js";export{f as AutoApplied,a as REVERT_MS,b as RevertAction,c as recordName,e as revertEntry,d as ruleApplied};
