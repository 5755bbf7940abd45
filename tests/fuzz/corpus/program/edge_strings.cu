const char *s = "/*@plan \" @*/"; char c = '\''; const char *r = R"xy(/*@plan )" @*/)xy";
#define X "extern \"C\" __global__ void f(int)" \
  continued
extern "C" __global__ void k(const float *x, float *y, long n) {}
/*@plan
call relu(x) -> y
@*/
