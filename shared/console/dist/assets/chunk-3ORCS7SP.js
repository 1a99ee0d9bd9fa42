import{a,b,c,d,e,f}from"./chunk-KD47HXYR.js";import"./chunk-II2GVPON.js";export{f as AutoApplied,a as REVERT_MS,b as RevertAction,c as recordName,e as revertEntry,d as ruleApplied};
