/* A program that never calls MPI. */
int main(void) { return 0; }
