import{a,b,c,d,e,f}from"./chunk-AWVL2EUC.js";import"./chunk-PMF4UOC7.js";export{f as AutoApplied,a as REVERT_MS,b as RevertAction,c as recordName,e as revertEntry,d as ruleApplied};
