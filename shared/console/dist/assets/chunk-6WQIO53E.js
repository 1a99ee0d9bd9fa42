import{a,b,c,d,e}from"./chunk-2YYJPEZH.js";import"./chunk-VQQISGDS.js";export{e as AutoApplied,a as REVERT_MS,b as RevertAction,d as revertEntry,c as ruleApplied};
