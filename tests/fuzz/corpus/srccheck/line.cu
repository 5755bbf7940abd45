#line 10
#line 10 "/etc/passwd"
#line X
# 1 "file"
#error don't
#warning "w"
