import{a,b,c,d}from"./chunk-37P646JV.js";import"./chunk-H3UD6HP7.js";export{d as AutoApplied,a as REVERT_MS,b as RevertAction,c as ruleApplied};
