/* /*@plan */ // /*@plan
/*@plan
call relu(x) -> y # comment @
@*/ /*