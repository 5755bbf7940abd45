/*@plan
launch k grid=(1) block=(1) args()
@*/
