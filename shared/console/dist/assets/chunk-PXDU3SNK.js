import{a,b,c,d,e}from"./chunk-AJXUVZEC.js";import"./chunk-H3UD6HP7.js";export{e as AutoApplied,a as REVERT_MS,b as RevertAction,d as revertEntry,c as ruleApplied};
