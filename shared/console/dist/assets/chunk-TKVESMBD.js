import{a,b,c,d,e}from"./chunk-CJQWRHNR.js";import"./chunk-II2GVPON.js";export{e as AutoApplied,a as REVERT_MS,b as RevertAction,d as revertEntry,c as ruleApplied};
