import{a,b,c,d,e,f}from"./chunk-3P5BBCAM.js";import"./chunk-2WRIB3CZ.js";export{f as AutoApplied,a as REVERT_MS,b as RevertAction,c as recordName,e as revertEntry,d as ruleApplied};
